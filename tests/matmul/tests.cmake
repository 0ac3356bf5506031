# Matrix-multiply scene (issue 11).
ks_add_test(NAME test_matmul_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_cpu.c)
target_link_libraries(test_matmul_cpu PRIVATE ks_test_util)
set_property(TEST test_matmul_cpu APPEND PROPERTY LABELS gl) # runs the binary headless (EGL)
ks_add_test(NAME test_matmul_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_gpu.c)
