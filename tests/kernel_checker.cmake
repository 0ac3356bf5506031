# The checker process (app/kernel/kernel_checker.h): the test binary is its own
# child, with a fake check that passes, fails, hangs, crashes or reports a fatal error; under a
# stand-in compute-sanitizer (fake_compute_sanitizer.sh), a fault named by its memcheck report
# (about a minute under ASan on an idle 2-core machine, twice that loaded).
ks_add_test(NAME test_kernel_checker LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_checker.c
            ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_check_wire.c
            ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_check_memcheck.c TIMEOUT 240)
# The page's editor of a kernel file (app/kernel/kernel_page.h): describe, Compile, refusals.
ks_add_test(NAME test_kernel_page LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_page.c TIMEOUT 60)
target_link_libraries(test_kernel_page PRIVATE ks_test_util)
# The variant set without kernel files: Tab's order over ours, the scene's times cleared for a new
# block and kept when nothing new runs.
ks_add_test(NAME test_variant_set LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_variant_set.c TIMEOUT 60)
