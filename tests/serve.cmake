# serve/: the --serve web server end to end on the CPU backend (curl and raw
# sockets; headless Chromium where it is installed, else skipped).
add_test(NAME test_serve_http COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_http.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_serve_http PROPERTIES LABELS "cpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE)
add_test(NAME test_serve_browser COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_browser.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_serve_browser PROPERTIES LABELS "cpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE)
# A paused run with nobody watching idles: the frame counter stops, N still steps one frame, a viewer
# still gets pictures, a --frames run still ends.
add_test(NAME test_serve_idle COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_idle.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_serve_idle PROPERTIES LABELS "cpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 300)
ks_add_xvfb_test(NAME test_serve_idle_window LABELS "cpu;gl" TIMEOUT 300 NEEDS xdotool
                 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_idle.sh $<TARGET_FILE:kernelscope> window)
if(TEST test_serve_idle_window)
  set_property(TEST test_serve_idle_window APPEND PROPERTY ENVIRONMENT
               "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endif()
# serve/'s pieces (listen address, tokens, keys, input queue, frame hub, JPEG, the editor's routes on a
# real server), and the request decisions, framing and WebSocket input of serve/request.h.
ks_add_test(NAME test_serve_units LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_serve_units.c TIMEOUT 60)
target_link_libraries(test_serve_units PRIVATE ks_test_util)
ks_add_test(NAME test_serve_request LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_serve_request.c TIMEOUT 60)
# Sanitizer builds: the kernelscope processes these scripts start open a GL context (see the gl list in
# tests/CMakeLists.txt for why leak detection needs these suppressions there).
foreach(t test_serve_http test_serve_browser test_serve_idle)
  set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
               "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endforeach()
# The page's layout at 1280x800, 1920x1080 and 390x844, checked through its DOM in headless Chromium
# (driven over --remote-debugging-pipe; skipped without Chromium): nothing over the picture, no two
# boxes overlapping, convergence points plotted, a colour bar with its gradient.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_serve_layout COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/serve_layout.py
           $<TARGET_FILE:kernelscope>)
  set_tests_properties(test_serve_layout PROPERTIES LABELS "cpu;gl" SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE
                       ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endif()
# issues 21 and 34's attack passes, bounded (about 60 s): pipelined requests on a server of their own (answered
# in order, a new connection accepted after, SIGTERM ending it), every hostile request class, 200 slow clients of
# each kind (3 rounds of 2.5 s), VmRSS flat, a clean exit (no LeakSanitizer report in the sanitizer build).
# Figures: docs/results/serve_attack.txt.
if(Python3_Interpreter_FOUND)
  if(KS_SANITIZE)
    set(KS_ATTACK_SLACK 4096) # ASan's allocator grows in larger steps
    set(KS_ATTACK_SLOW_SLACK 8192) # and its quarantine swung 200 idle clients' RSS by 4.4 MB in one run
  else()
    set(KS_ATTACK_SLACK 1024)
    set(KS_ATTACK_SLOW_SLACK 4096)
  endif()
  add_test(NAME test_serve_attack COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/serve_attack.py
           $<TARGET_FILE:kernelscope> --seconds 2 --slow-seconds 2.5 --rss-slack-kb ${KS_ATTACK_SLACK}
           --slow-rss-slack-kb ${KS_ATTACK_SLOW_SLACK})
  set_tests_properties(test_serve_attack PROPERTIES LABELS "cpu" SKIP_RETURN_CODE 77 TIMEOUT 240 RUN_SERIAL TRUE
                       ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endif()
# --edit's page in headless Chromium against the real server with an in-memory editor (no GPU needed):
# an edit compiled and shown, a refused build's log shown (skipped without Chromium).
add_executable(serve_editor_host ${CMAKE_CURRENT_SOURCE_DIR}/serve_editor_host.c)
target_compile_options(serve_editor_host PRIVATE $<$<COMPILE_LANGUAGE:C>:${KS_C_WARNINGS}>)
target_link_libraries(serve_editor_host PRIVATE ks_core)
set_target_properties(serve_editor_host PROPERTIES LINKER_LANGUAGE ${KS_LINKER_LANGUAGE})
add_test(NAME test_serve_editor_browser COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_editor_browser.sh
         $<TARGET_FILE:serve_editor_host>)
set_tests_properties(test_serve_editor_browser PROPERTIES LABELS "cpu" SKIP_RETURN_CODE 77 TIMEOUT 200 RUN_SERIAL TRUE)
