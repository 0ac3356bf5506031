# render/: image writers, the view model and its JSON, the renderer on headless EGL (Mesa
# llvmpipe or NVIDIA) and the GLFW window (under xvfb-run where it exists).
# In sanitizer builds render/window.c keeps the loaded GL driver mapped until
# exit, so that LeakSanitizer sees the driver's process-lifetime allocations as
# reachable; lsan.supp (set for every gl-labelled test in tests/CMakeLists.txt)
# covers drivers that still report some.

ks_add_test(NAME test_render_image_io LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_render_image_io.c
            TIMEOUT 60)

# Needs only an EGL display (Mesa's device or surfaceless platform is enough).
ks_add_test(NAME test_render_headless LABEL cpu
            SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_render_headless.c
            TIMEOUT 120)

# The window test needs an X server: ks_add_test cannot wrap the command, so
# it is registered here with the same settings, run through xvfb-run.
add_executable(test_render_window ${CMAKE_CURRENT_SOURCE_DIR}/test_render_window.c)
target_compile_options(test_render_window PRIVATE $<$<COMPILE_LANGUAGE:C>:${KS_C_WARNINGS}>)
target_link_libraries(test_render_window PRIVATE ks_core PkgConfig::CMOCKA)
set_target_properties(test_render_window PROPERTIES LINKER_LANGUAGE ${KS_LINKER_LANGUAGE})
if(KS_XVFB_RUN)
  ks_add_xvfb_test(NAME test_render_window LABELS cpu TIMEOUT 120 COMMAND $<TARGET_FILE:test_render_window>)
else() # without an X server it exits 77: counted as skipped
  add_test(NAME test_render_window COMMAND test_render_window)
  set_tests_properties(test_render_window PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# The ImGui panels, headless: inside the frame and apart at 800x600 .. 2560x1440.
ks_add_test(NAME test_ui_headless LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ui_headless.c
            TIMEOUT 120)

# The live view's zoom and pan, the cell map and the Laplace view picture's
# downsampling rule (CPU), against naive references on odd sizes.
ks_add_test(NAME test_viewport LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_viewport.c TIMEOUT 120)
