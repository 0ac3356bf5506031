# video/: the H.264 stream encoder and the recorder (libx264 on the CPU), and
# --record end to end, checked with ffprobe (skipped when it is not installed).
# A build without FFmpeg's libraries has no video to test.
if(NOT KS_HAVE_VIDEO)
  return()
endif()
ks_add_test(NAME test_video LABEL cpu SOURCES test_video.c TIMEOUT 120)
ks_add_test(NAME test_video_cli LABEL cpu SOURCES test_video_cli.c TIMEOUT 300)
target_link_libraries(test_video_cli PRIVATE ks_test_util)
add_dependencies(test_video_cli kernelscope)
set_tests_properties(test_video_cli PROPERTIES LABELS "cpu;gl")
set_property(TEST test_video_cli APPEND PROPERTY ENVIRONMENT
             "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
# Perf harness (not a test): encoder frames/s at 1920x1080 (perf_video --help).
add_executable(perf_video ${CMAKE_CURRENT_SOURCE_DIR}/perf_video.c)
target_compile_options(perf_video PRIVATE ${KS_C_WARNINGS})
target_link_libraries(perf_video PRIVATE ks_core)
set_target_properties(perf_video PROPERTIES LINKER_LANGUAGE ${KS_LINKER_LANGUAGE})
# The E key in a real window (xdotool under Xvfb), when both are installed.
ks_add_xvfb_test(NAME test_video_key LABELS "cpu;gl" TIMEOUT 120 NEEDS xdotool
                 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/keys_record.sh $<TARGET_FILE:kernelscope>)
# The same recordings on the CUDA backend (frames through CUDA-GL interop).
if(KS_CUDA)
  add_test(NAME test_video_cli_gpu COMMAND test_video_cli gpu)
  set_tests_properties(test_video_cli_gpu PROPERTIES LABELS "gpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE
                       ENVIRONMENT "KS_BINARY=$<TARGET_FILE:kernelscope>")
endif()
