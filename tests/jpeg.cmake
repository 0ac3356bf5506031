# JPEG encoders (serve/jpeg*.h): the CPU encoder and the colour
# reference (cpu); the nvJPEG encoder against the reference and through a
# decoder (gpu; `test_jpeg_gpu --time` prints the encode time at 1920x1080).
ks_add_test(NAME test_jpeg_cpu LABEL cpu
            SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_jpeg_cpu.c ${CMAKE_CURRENT_SOURCE_DIR}/jpeg_check.c TIMEOUT 120)
ks_add_test(NAME test_jpeg_gpu LABEL gpu
            SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_jpeg_gpu.c ${CMAKE_CURRENT_SOURCE_DIR}/jpeg_check.c TIMEOUT 300)
find_package(Threads REQUIRED)
foreach(t test_jpeg_cpu test_jpeg_gpu)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE Threads::Threads) # the tests run encoders on two threads
  endif()
endforeach()
