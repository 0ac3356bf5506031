# Laplace kernels: CPU gold tests everywhere, GPU variant tests where a device exists,
# and the perf harness (an executable only; scripts/gpu-laplace.sh runs it).
ks_add_test(NAME test_laplace_gold LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_gold.c
            TIMEOUT 300)
ks_add_test(NAME test_laplace_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_gpu.c
            ${CMAKE_CURRENT_LIST_DIR}/test_laplace_gpu_solver.c ${CMAKE_CURRENT_LIST_DIR}/laplace_gpu_util.c TIMEOUT 600)
# The colour bar's float field histogram (kernels/laplace/field_histogram.h): the gold's bins,
# clamped ends and skipped NaN (cpu); the GPU's counts equal to the gold, and its refusals (gpu).
ks_add_test(NAME test_field_histogram LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_field_histogram.c TIMEOUT 60)
ks_add_test(NAME test_field_histogram_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_field_histogram_gpu.c
            TIMEOUT 120)

if(KS_CUDA) # both time the GPU through the CUDA runtime
  add_executable(perf_laplace ${CMAKE_CURRENT_LIST_DIR}/perf_laplace.c)
  target_compile_options(perf_laplace PRIVATE ${KS_C_WARNINGS})
  target_link_libraries(perf_laplace PRIVATE ks_core)
  set_target_properties(perf_laplace PROPERTIES LINKER_LANGUAGE CUDA)

  # Bandwidth probe: copy kernel and work orderings of the single-sweep kernels
  # against the D2D memcpy (docs/laplace-perf.md, run 6).
  add_executable(perf_stream ${CMAKE_CURRENT_LIST_DIR}/perf_stream.cu)
  target_include_directories(perf_stream PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(perf_stream PRIVATE ks_core)

  # regq candidates (kernels/laplace/regq_fast.h) over blocks and chunks against T_peak, and the
  # profiling mode scripts/perf-issue38.sh gives Nsight Compute.
  add_executable(perf_regq ${CMAKE_CURRENT_LIST_DIR}/perf_regq.cu)
  target_include_directories(perf_regq PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(perf_regq PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${KS_CUDA_FLAGS}>)
  target_link_libraries(perf_regq PRIVATE ks_core)
endif()
# The live view's picture (zoom, pan, mean of the covered cells) on the GPU
# against the CPU reference, bit for bit, and the full-resolution slice for F.
ks_add_test(NAME test_laplace_view_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_view_gpu.c
            TIMEOUT 300)
# The difference view's picture (D): colours, a pixel over several cells showing their largest.
ks_add_test(NAME test_laplace_diff LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_diff.c TIMEOUT 60)
# The live view's residual/histogram cadence and --iters auto's sizing, on made-up timings.
ks_add_test(NAME test_cadence LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cadence.c)
ks_add_test(NAME test_iters_auto LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_iters_auto.c)
# The kernel contract: starters compile with NVRTC (no GPU), --help shows the contract.
ks_add_test(NAME test_laplace_contract LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_contract.c
            TIMEOUT 60)
target_link_libraries(test_laplace_contract PRIVATE ks_test_util)
# A user's kernel on the GPU: checked in process and in the checker process (fault, endless
# loop), reloaded on save in a live run, a bench row named after its file.
ks_add_test(NAME test_user_kernel_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_user_kernel_gpu.c
            TIMEOUT 600)
if(KS_CUDA) # gpu tests exist only there
  target_link_libraries(test_user_kernel_gpu PRIVATE ks_test_util)
  add_dependencies(test_user_kernel_gpu kernelscope)
  # Its kernels that fault (an out-of-bounds write, an endless loop) as a test of their own, which
  # tests/CMakeLists.txt orders after every other: on some GPUs a fault leaves the GPU unable to
  # switch between processes for minutes, and the tests after it would stall.
  set_property(TEST test_user_kernel_gpu APPEND PROPERTY ENVIRONMENT KS_TEST_NO_FAULTS=1)
  add_test(NAME test_user_kernel_faults_gpu COMMAND test_user_kernel_gpu)
  set_tests_properties(test_user_kernel_faults_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE
                       ENVIRONMENT "KS_BINARY=$<TARGET_FILE:kernelscope>;KS_TEST_FAULTS_ONLY=1")
endif()
# tblock's chunk plan (the one launch a slab of several GPUs, laplace_chunks.h): coverage, edge first, refusals.
ks_add_test(NAME test_laplace_chunks LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_chunks.c TIMEOUT 60)
# Slabs for several GPUs, and the N-domain CPU solver bit for bit against one domain.
ks_add_test(NAME test_laplace_domains LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_domains.c
            TIMEOUT 120)
# The multi-GPU model's own checks (scripts/scaling-model.py, docs/scaling.md).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_scaling_model COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/scaling-model.py --check)
  set_tests_properties(test_scaling_model PROPERTIES LABELS "cpu" TIMEOUT 60)
  # ... and held against the stored two-GPU measurements (docs/scaling.md): within 10 %.
  add_test(NAME test_scaling_model_measured COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/scaling-model.py
           --measured ${PROJECT_SOURCE_DIR}/docs/results/scaling-h100x2.csv --tolerance 0.10)
  set_tests_properties(test_scaling_model_measured PROPERTIES LABELS "cpu" TIMEOUT 60)
  add_test(NAME test_scaling_model_measured_h200 COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/scaling-model.py
           --measured ${PROJECT_SOURCE_DIR}/docs/results/scaling-h200x2.csv --tolerance 0.10)
  set_tests_properties(test_scaling_model_measured_h200 PROPERTIES LABELS "cpu" TIMEOUT 60)
endif()
# Several GPUs (NCCL): every variant bit for bit against one GPU, the timing figures, the
# refusals; skipped with fewer than two GPUs. Label multigpu too: ctest -L multigpu.
ks_add_test(NAME test_laplace_multi_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_laplace_multi_gpu.c
            TIMEOUT 600)
if(KS_CUDA)
  set_tests_properties(test_laplace_multi_gpu PROPERTIES LABELS "gpu;multigpu")
  # The scaling bench threaded and under mpirun (each checks its field bit for bit against the
  # CPU gold, so both give the same field), and compute-sanitizer on rank 0.
  add_test(NAME test_multigpu_bench COMMAND ${CMAKE_CURRENT_LIST_DIR}/multigpu_bench.sh)
  set_tests_properties(test_multigpu_bench PROPERTIES LABELS "gpu;multigpu" SKIP_RETURN_CODE 77 TIMEOUT 900
                       RUN_SERIAL TRUE ENVIRONMENT "KS_BINARY=$<TARGET_FILE:kernelscope>")
endif()
# --gpus and --weak refused with one line (values, no NCCL, no GPU, with --kernel-file).
add_test(NAME test_multigpu_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/multigpu_cli.sh)
set_tests_properties(test_multigpu_cli PROPERTIES LABELS "cpu" TIMEOUT 120
                     ENVIRONMENT "KS_BINARY=$<TARGET_FILE:kernelscope>")
# The scaling bench's speed-ups, CSV columns, table and chart, on made-up rows.
ks_add_test(NAME test_scaling_output LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_scaling_output.c)
if(TARGET test_scaling_output)
  target_link_libraries(test_scaling_output PRIVATE ks_test_util)
endif()
# The course's kernels as written, each with its one kernelscope: line (examples/course/): they
# compile as kernelscope compiles them and a malformed line is one line of error (cpu); on the GPU
# each passes the check launched as its line says, a boundary that changes, sizes that do not
# match the function and a live grid a `multiple` kernel cannot take are refused.
ks_add_test(NAME test_course_kernels LABEL cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_course_kernels.c TIMEOUT 120)
target_link_libraries(test_course_kernels PRIVATE ks_test_util)
ks_add_test(NAME test_course_kernels_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_course_kernels_gpu.c
            TIMEOUT 300)
if(KS_CUDA) # gpu tests exist only there
  target_link_libraries(test_course_kernels_gpu PRIVATE ks_test_util)
endif()
