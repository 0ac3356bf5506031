# Histogram scene (issue 11): gold, inputs, npy/CSV writers, CLI errors (cpu);
# every variant against the gold (gpu).
ks_add_test(NAME test_histogram_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_histogram_cpu.c)
target_link_libraries(test_histogram_cpu PRIVATE ks_test_util)
set_property(TEST test_histogram_cpu APPEND PROPERTY LABELS gl)
ks_add_test(NAME test_histogram_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_histogram_gpu.c)
