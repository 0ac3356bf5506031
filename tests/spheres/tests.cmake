# Sphere ray-casting scene.
ks_add_test(NAME test_spheres_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spheres_cpu.c)
ks_add_test(NAME test_spheres_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spheres_gpu.c)

# Standalone timing program (not a test): the bench's measuring code without the app.
add_executable(perf_spheres ${CMAKE_CURRENT_LIST_DIR}/perf_spheres.c)
target_compile_options(perf_spheres PRIVATE ${KS_C_WARNINGS})
target_link_libraries(perf_spheres PRIVATE ks_core)
set_target_properties(perf_spheres PROPERTIES LINKER_LANGUAGE ${KS_LINKER_LANGUAGE})
