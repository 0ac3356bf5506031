# Reduce scene: gold, tolerances, levels and picture on the CPU; every GPU variant
# against the gold; the bench core; the perf harness (an executable only).
ks_add_test(NAME test_reduce_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_cpu.c)
ks_add_test(NAME test_reduce_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_gpu.c)
if(KS_CUDA)
  add_executable(perf_reduce ${CMAKE_CURRENT_LIST_DIR}/perf_reduce.c)
  target_compile_options(perf_reduce PRIVATE ${KS_C_WARNINGS})
  target_link_libraries(perf_reduce PRIVATE ks_core)
  set_target_properties(perf_reduce PROPERTIES LINKER_LANGUAGE CUDA)
endif()
# The scene through the binary on the CPU backend: live picture, bench reduce's CSV and chart, bad input.
ks_add_test(NAME test_reduce_cli LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_cli.c TIMEOUT 300)
target_link_libraries(test_reduce_cli PRIVATE ks_test_util)
add_dependencies(test_reduce_cli kernelscope)
set_property(TEST test_reduce_cli APPEND PROPERTY LABELS gl) # runs the binary headless (EGL)
# A user's reduce kernel, no GPU needed: the starters compile with NVRTC, new-kernel, --help's
# contract, compile errors as file:line lines, --kernel-file without a device and its flags (the
# scan stays ours), the check's comparison, message and tolerance.
ks_add_test(NAME test_reduce_contract LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_contract.c TIMEOUT 120)
target_link_libraries(test_reduce_contract PRIVATE ks_test_util)
# A user's reduce kernel on the GPU: checked in the checker process (correct ones pass, wrong ones
# are refused with the value, the expected one and the error), a live run, bench rows named after the file.
ks_add_test(NAME test_reduce_user_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_user_gpu.c TIMEOUT 600)
if(KS_CUDA) # gpu tests exist only there
  target_link_libraries(test_reduce_user_gpu PRIVATE ks_test_util)
  add_dependencies(test_reduce_user_gpu kernelscope)
endif()
