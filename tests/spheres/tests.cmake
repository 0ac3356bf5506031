# Sphere ray-casting scene.
ks_add_test(NAME test_spheres_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spheres_cpu.c)
ks_add_test(NAME test_spheres_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spheres_gpu.c)

# Standalone timing program (not a test): the bench's measuring code without the app.
add_executable(perf_spheres ${CMAKE_CURRENT_LIST_DIR}/perf_spheres.c)
target_compile_options(perf_spheres PRIVATE ${KS_C_WARNINGS})
target_link_libraries(perf_spheres PRIVATE ks_core)
set_target_properties(perf_spheres PROPERTIES LINKER_LANGUAGE ${KS_LINKER_LANGUAGE})
# A user's sphere kernel, no GPU needed: the starters compile with NVRTC, new-kernel, --help's
# contract, --kernel-file without a device, the check's comparison and its tolerance.
ks_add_test(NAME test_spheres_contract LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spheres_contract.c
            TIMEOUT 120)
target_link_libraries(test_spheres_contract PRIVATE ks_test_util)
# A user's sphere kernel on the GPU: checked in the checker process (the starter, the pointer
# routes and the __constant__ route pass; a kernel that skips a sphere is refused at its first wrong
# pixel; a __constant__ array too small for the scene is refused), the difference, a live run, the
# bench's columns named after the files.
ks_add_test(NAME test_spheres_user_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spheres_user_gpu.c
            TIMEOUT 600)
if(KS_CUDA) # gpu tests exist only there
  target_link_libraries(test_spheres_user_gpu PRIVATE ks_test_util)
  add_dependencies(test_spheres_user_gpu kernelscope)
endif()
