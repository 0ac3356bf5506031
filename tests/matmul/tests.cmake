# Matrix-multiply scene (issue 11).
ks_add_test(NAME test_matmul_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_cpu.c)
target_link_libraries(test_matmul_cpu PRIVATE ks_test_util)
set_property(TEST test_matmul_cpu APPEND PROPERTY LABELS gl) # runs the binary headless (EGL)
# regtile's tile shape per size and GPU (kernels/matmul/matmul_tiles.h)
ks_add_test(NAME test_matmul_tiles LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_tiles.c TIMEOUT 60)
ks_add_test(NAME test_matmul_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_gpu.c)
# A user's matmul kernel, no GPU needed: the starters compile with NVRTC, new-kernel, --help's
# contract, compile errors as file:line lines, --kernel-file without a device, the check's comparison.
ks_add_test(NAME test_matmul_contract LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_contract.c
            TIMEOUT 120)
target_link_libraries(test_matmul_contract PRIVATE ks_test_util)
# A user's matmul kernel on the GPU: checked in the checker process (a correct one passes, a
# wrong one is refused at its first wrong element), a live run, bench rows named after the file.
ks_add_test(NAME test_matmul_user_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_matmul_user_gpu.c
            TIMEOUT 600)
if(KS_CUDA) # gpu tests exist only there
  target_link_libraries(test_matmul_user_gpu PRIVATE ks_test_util)
  add_dependencies(test_matmul_user_gpu kernelscope)
endif()
# --edit and the difference view end to end on the GPU (scripts/kernel-edit.py is the page): a
# changed source runs, D shows it equal to regtile, a wrong one is refused and its difference
# names the column it left unwritten, a broken one is refused with file:line.
if(KS_CUDA AND Python3_EXECUTABLE)
  add_test(NAME test_matmul_edit_diff_gpu COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/kernel-edit.py
           --bin $<TARGET_FILE:kernelscope> --scene matmul)
  set_tests_properties(test_matmul_edit_diff_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# SGEMM perf harness (an executable only; scripts/perf-issue38.sh runs it): every tile shape of
# regtile (kernels/matmul/matmul_regtile.cu, matmul_tiles.h) against cuBLAS in plain FP32, checked, per size.
if(KS_CUDA)
  add_executable(perf_sgemm ${CMAKE_CURRENT_LIST_DIR}/perf_sgemm.cu)
  target_include_directories(perf_sgemm PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(perf_sgemm PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${KS_CUDA_FLAGS}>)
  target_link_libraries(perf_sgemm PRIVATE ks_core CUDA::cublas)
endif()
