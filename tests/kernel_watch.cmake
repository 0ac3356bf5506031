# Hot reload of kernel files (app/kernel/kernel_watch.h): inotify, debounce, the
# worker's builds (NVRTC without a GPU, or its absence said), check, destroy.
ks_add_test(NAME test_kernel_watch LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_watch.c TIMEOUT 300)
target_link_libraries(test_kernel_watch PRIVATE ks_test_util)
