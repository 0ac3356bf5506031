# Histogram scene (issue 11): gold, inputs, npy/CSV writers, CLI errors (cpu);
# every variant against the gold (gpu).
ks_add_test(NAME test_histogram_cpu LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_histogram_cpu.c)
target_link_libraries(test_histogram_cpu PRIVATE ks_test_util)
set_property(TEST test_histogram_cpu APPEND PROPERTY LABELS gl)
ks_add_test(NAME test_histogram_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_histogram_gpu.c)
# The byte kernels warp chooses among (kernels/histogram/hist_fast.h), each exact on every input,
# length and alignment; the choice timed on the input and exact.
ks_add_test(NAME test_hist_fast_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hist_fast_gpu.c TIMEOUT 300)
# A user's histogram kernel, no GPU needed: the starters compile with NVRTC, new-kernel, --help's
# contract, compile errors as file:line lines, --kernel-file without a device and its flags, the
# check's comparison.
ks_add_test(NAME test_histogram_contract LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_histogram_contract.c
            TIMEOUT 120)
target_link_libraries(test_histogram_contract PRIVATE ks_test_util)
# A user's histogram kernel on the GPU: checked in the checker process (correct ones pass, wrong
# ones are refused at their first wrong bin), a live run, bench rows named after the file.
ks_add_test(NAME test_histogram_user_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_histogram_user_gpu.c
            TIMEOUT 600)
if(KS_CUDA) # gpu tests exist only there
  target_link_libraries(test_histogram_user_gpu PRIVATE ks_test_util)
  add_dependencies(test_histogram_user_gpu kernelscope)
endif()
# --edit and the difference view end to end on the GPU (scripts/kernel-edit.py is the page): a
# changed source runs, D shows it equal to cub, a kernel that never counts 'e' is refused and its
# difference is that one bin, a broken one is refused with file:line.
if(KS_CUDA AND Python3_EXECUTABLE)
  add_test(NAME test_histogram_edit_diff_gpu COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/kernel-edit.py
           --bin $<TARGET_FILE:kernelscope> --scene histogram)
  set_tests_properties(test_histogram_edit_diff_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Byte-histogram perf harness (an executable only; scripts/perf-issue38.sh runs it): the candidates
# of kernels/histogram/hist_fast.h against CUB and warp on text, uniform and all-equal bytes.
if(KS_CUDA)
  add_executable(perf_hist ${CMAKE_CURRENT_LIST_DIR}/perf_hist.cu)
  target_include_directories(perf_hist PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(perf_hist PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${KS_CUDA_FLAGS}>)
  target_link_libraries(perf_hist PRIVATE ks_core)
endif()
