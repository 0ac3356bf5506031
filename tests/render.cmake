# render/: image writers, the renderer (headless EGL on Mesa or NVIDIA) and the GLFW window.
ks_add_test(NAME test_render_image_io LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_render_image_io.c
            TIMEOUT 60)
