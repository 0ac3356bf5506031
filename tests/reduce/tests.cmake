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
