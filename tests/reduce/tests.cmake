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
