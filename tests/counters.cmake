# Hardware counters and the timeline (counters/): the metric tables, panel rows
# and CSV (cpu); the "no counters" words and create's refusals (cpu); the none
# twin of a build without CUPTI, compiled into its own test in every build
# (cpu); the timeline's rings and strip
# chart with recorded data (cpu); known kernels giving known counters on a GPU,
# with a diagnostic trace of every CUPTI call (gpu). counters_probe lists what
# CUPTI offers on the GPU at hand and writes its measured values for
# scripts/ncu-compare.py counters (not a test; docs/counters.md).
set(KS_COUNTERS_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/counters)
ks_add_test(NAME test_counters LABEL cpu SOURCES ${KS_COUNTERS_TESTS}/test_counters.c TIMEOUT 60)
target_link_libraries(test_counters PRIVATE ks_counters)
ks_add_test(NAME test_counters_why LABEL cpu SOURCES ${KS_COUNTERS_TESTS}/test_counters_why.c TIMEOUT 60)
target_link_libraries(test_counters_why PRIVATE ks_counters)
ks_add_test(NAME test_counters_none LABEL cpu
            SOURCES ${KS_COUNTERS_TESTS}/test_counters_none.c ${PROJECT_SOURCE_DIR}/counters/counters_none.c
                    ${PROJECT_SOURCE_DIR}/counters/counters_metrics.c ${PROJECT_SOURCE_DIR}/counters/counters_text.c
                    ${PROJECT_SOURCE_DIR}/counters/timeline_strip.c
            TIMEOUT 60)
ks_add_test(NAME test_timeline_strip LABEL cpu SOURCES ${KS_COUNTERS_TESTS}/test_timeline_strip.c TIMEOUT 120)
target_link_libraries(test_timeline_strip PRIVATE ks_counters Threads::Threads)
ks_add_test(NAME test_counters_gpu LABEL gpu
            SOURCES ${KS_COUNTERS_TESTS}/test_counters_gpu.c ${KS_COUNTERS_TESTS}/test_counters_gpu_timeline.c
                    ${KS_COUNTERS_TESTS}/counters_test_kernels.cu TIMEOUT 600)
if(TARGET test_counters_gpu)
  target_link_libraries(test_counters_gpu PRIVATE ks_counters)
  if(KS_HAVE_CUPTI)
    # The test holds CUPTI's subscriber itself, as another tool would: libcupti linked
    # (the counters' dlopen then finds the same library) and its headers.
    target_include_directories(test_counters_gpu SYSTEM PRIVATE ${KS_CUPTI_INCLUDE})
    target_link_libraries(test_counters_gpu PRIVATE ${KS_CUPTI_LIBRARY_FILE})
  endif()
endif()
if(KS_CUDA)
  add_executable(counters_probe ${KS_COUNTERS_TESTS}/counters_probe.c ${KS_COUNTERS_TESTS}/counters_test_kernels.cu)
  target_compile_options(counters_probe PRIVATE $<$<COMPILE_LANGUAGE:C>:${KS_C_WARNINGS}>)
  target_link_libraries(counters_probe PRIVATE ks_counters)
  set_target_properties(counters_probe PROPERTIES LINKER_LANGUAGE CUDA)
endif()
# scripts/ncu-compare.py counters on recorded files (the probe's CSV and ncu's, and the printed forms).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_ncu_compare COMMAND ${Python3_EXECUTABLE} ${KS_COUNTERS_TESTS}/test_ncu_compare.py)
  set_tests_properties(test_ncu_compare PROPERTIES LABELS "cpu" TIMEOUT 60)
  # scripts/counters-tables.py on a recorded gpu-check counters folder (the scene docs' tables).
  add_test(NAME test_counters_tables COMMAND ${Python3_EXECUTABLE} ${KS_COUNTERS_TESTS}/test_counters_tables.py)
  set_tests_properties(test_counters_tables PROPERTIES LABELS "cpu" TIMEOUT 60)
endif()
