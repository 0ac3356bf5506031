# base/: helpers every layer shares.
ks_add_test(NAME test_ks_util LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ks_util.c TIMEOUT 60)
# The GPU threads of the multi-GPU solver: each index once a job, the same threads, failures carried back.
ks_add_test(NAME test_worker_pool LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_worker_pool.c TIMEOUT 60)
ks_add_test(NAME test_timing_window LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_timing_window.c TIMEOUT 60)
ks_add_test(NAME test_bench_timing LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_timing.c TIMEOUT 60)
ks_add_test(NAME test_cuda_notice LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cuda_notice.c TIMEOUT 60)
# The stage timer's host-clocked stages beside its CUDA events (the multi-GPU live view's Jacobi stage).
ks_add_test(NAME test_stage_timer_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_stage_timer_gpu.c TIMEOUT 60)
# The copy path's device -> pinned host ring and the interop test switch.
ks_add_test(NAME test_interop_gpu LABEL gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_interop_gpu.c TIMEOUT 60)
# scripts/test.sh: every stage runs, a one-line summary, non-zero when one failed (stubbed builds).
add_test(NAME test_sh_stages COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_sh_stages.sh)
set_tests_properties(test_sh_stages PROPERTIES LABELS cpu TIMEOUT 60)
# scripts/start.sh: a quiet build (a progress line with the percentage, the log in the build
# folder), then the app (stubbed build); its headless defaults run with the real app, whose
# saved frames must differ (the field evolving).
add_test(NAME test_start_sh COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_start_sh.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_start_sh PROPERTIES LABELS "cpu;gl" TIMEOUT 300 ENVIRONMENT
                     "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
# app/kernel/nvrtc_compile.h: NVRTC's log as file:line lines; compiles where the toolkit has NVRTC (no GPU).
ks_add_test(NAME test_nvrtc LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_nvrtc.c TIMEOUT 60)
# base/out_file.h: the temporary every output goes through. getrandom is wrapped
# so that the test can plant symlinks and files at exactly the names the writer will draw.
ks_add_test(NAME test_out_file LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_out_file.c TIMEOUT 60)
target_link_options(test_out_file PRIVATE "LINKER:--wrap=getrandom")
ks_add_test(NAME test_host_peak LABEL cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_host_peak.c TIMEOUT 60)
# scripts/bench-tables.py: the Markdown tables of docs/benchmarks.md from the benches' CSVs
add_test(NAME test_bench_tables COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench_tables.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(test_bench_tables PROPERTIES LABELS cpu TIMEOUT 60)
# scripts/course-timing.sh without a GPU: no nvcc said in one line; with a stand-in nvcc (a C++ compiler's
# syntax run) each course kernel's host program compiles and launches the entry its kernelscope: line names.
add_test(NAME test_course_timing COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/course_timing.sh ${CMAKE_SOURCE_DIR}
         ${CMAKE_CXX_COMPILER})
set_tests_properties(test_course_timing PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 120)
