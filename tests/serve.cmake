# serve/: the --serve web server end to end on the CPU backend (curl and raw
# sockets; headless Chromium where it is installed, else skipped).
add_test(NAME test_serve_http COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_http.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_serve_http PROPERTIES LABELS "cpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE)
add_test(NAME test_serve_browser COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_browser.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_serve_browser PROPERTIES LABELS "cpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE)
ks_add_test(NAME test_serve_units LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_serve_units.c TIMEOUT 60)
# Sanitizer builds: the kernelscope processes these scripts start open a GL context (see the gl list in
# tests/CMakeLists.txt for why leak detection needs these suppressions there).
foreach(t test_serve_http test_serve_browser)
  set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
               "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endforeach()
