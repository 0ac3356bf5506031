# App-level tests: options, best-config store, bench writers, stage timer, the CLI and end-to-end runs.
add_library(ks_test_util STATIC ${CMAKE_CURRENT_SOURCE_DIR}/test_util.c
            ${CMAKE_CURRENT_SOURCE_DIR}/user_kernel_test_util.c)
target_link_libraries(ks_test_util PUBLIC ks_core PkgConfig::CMOCKA)
target_compile_options(ks_test_util PRIVATE ${KS_C_WARNINGS})

ks_add_test(NAME test_test_util LABEL cpu SOURCES test_test_util.c TIMEOUT 60)
target_link_libraries(test_test_util PRIVATE ks_test_util)
ks_add_test(NAME test_options LABEL cpu SOURCES test_options.c)
ks_add_test(NAME test_ks_error LABEL cpu SOURCES test_ks_error.c TIMEOUT 60)
# The kernel declaration's parser: the course kernels' lines, bad lines, the appended text read back
# as another process reads it, the grid of each grid= kind, the multiple check grid.
ks_add_test(NAME test_kernel_decl LABEL cpu SOURCES test_kernel_decl.c TIMEOUT 60)
target_link_libraries(test_kernel_decl PRIVATE ks_test_util)
# compute-sanitizer memcheck's first error in the user's words, on reports in the tool's format.
ks_add_test(NAME test_sanitizer_report LABEL cpu SOURCES test_sanitizer_report.c TIMEOUT 60)
ks_add_test(NAME test_best_config LABEL cpu SOURCES test_best_config.c TIMEOUT 60)
target_link_libraries(test_best_config PRIVATE ks_test_util)
ks_add_test(NAME test_bench_table LABEL cpu SOURCES test_bench_table.c)
ks_add_test(NAME test_stage_timer LABEL cpu SOURCES test_stage_timer.c)
ks_add_test(NAME test_live_input LABEL cpu SOURCES test_live_input.c TIMEOUT 60)
ks_add_test(NAME test_cli LABEL cpu SOURCES test_cli.c TIMEOUT 300)
target_link_libraries(test_cli PRIVATE ks_test_util)

# bench live: its columns on made-up stats, a short headless run on the CPU backend, bad input.
ks_add_test(NAME test_bench_live LABEL cpu SOURCES test_bench_live.c TIMEOUT 300)
target_link_libraries(test_bench_live PRIVATE ks_test_util)
add_dependencies(test_bench_live kernelscope)

ks_add_test(NAME test_app_cpu LABEL cpu SOURCES test_app_render.c test_app_every_frame.c ARGS cpu TIMEOUT 300)
target_link_libraries(test_app_cpu PRIVATE ks_test_util)
add_dependencies(test_app_cpu kernelscope)
add_dependencies(test_cli kernelscope)
# Issue 14's command-line repros; no display needed. A hang (a FIFO as the
# best-config store) fails on the time limit.
ks_add_test(NAME test_cli_input LABEL cpu SOURCES test_cli_input.c TIMEOUT 120)
target_link_libraries(test_cli_input PRIVATE ks_test_util m)
add_dependencies(test_cli_input kernelscope)
# What a run says besides its work: no OpenMP line on a live run, no NVENC line without an NVIDIA
# driver, a scene's own --help.
ks_add_test(NAME test_cli_notices LABEL cpu SOURCES test_cli_notices.c TIMEOUT 120)
target_link_libraries(test_cli_notices PRIVATE ks_test_util ${CMAKE_DL_LIBS})
add_dependencies(test_cli_notices kernelscope)
if(TEST test_cli_notices)
  set_property(TEST test_cli_notices APPEND PROPERTY LABELS gl)
  set_property(TEST test_cli_notices APPEND PROPERTY ENVIRONMENT
               "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endif()

add_executable(test_app_gpu_bin test_app_render.c test_app_every_frame.c)
target_link_libraries(test_app_gpu_bin PRIVATE ks_test_util PkgConfig::CMOCKA)
target_compile_definitions(test_app_gpu_bin PRIVATE KS_TEST_DATA_DIR="${CMAKE_SOURCE_DIR}/tests/data")
set_target_properties(test_app_gpu_bin PROPERTIES LINKER_LANGUAGE ${KS_LINKER_LANGUAGE})
if(KS_CUDA) # the binary stays: test_app_window runs it on the CPU backend
  add_test(NAME test_app_gpu COMMAND test_app_gpu_bin gpu)
  set_tests_properties(test_app_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE
                       ENVIRONMENT "KS_BINARY=$<TARGET_FILE:kernelscope>")
endif()

# The window path: a real GLFW window on Xvfb (Mesa), when xvfb-run is installed.
ks_add_xvfb_test(NAME test_app_window LABELS cpu TIMEOUT 300 COMMAND $<TARGET_FILE:test_app_gpu_bin> window)

# bench live in both modes, the window on Xvfb (Mesa), on the CPU backend.
ks_add_xvfb_test(NAME test_bench_live_window LABELS "cpu;gl" TIMEOUT 300
                 COMMAND $<TARGET_FILE:test_bench_live> window)

# Real key presses in the live window (xdotool under Xvfb).
ks_add_xvfb_test(NAME test_app_keys LABELS "cpu;gl" TIMEOUT 120 NEEDS xdotool
                 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/keys_window.sh $<TARGET_FILE:kernelscope>)

# The Hardware panel's text from a recorded measurement, its "no counters" words, and bench
# --counters' CSV columns (empty, one line why, on the CPU backend and where this build has none).
ks_add_test(NAME test_hw_panel LABEL cpu SOURCES test_hw_panel.c TIMEOUT 300)
target_link_libraries(test_hw_panel PRIVATE ks_test_util)
add_dependencies(test_hw_panel kernelscope)
# The view model of each scene (CPU backend) and its JSON.
ks_add_test(NAME test_view LABEL cpu SOURCES test_view.c TIMEOUT 120)
# The life of a run: signals, outputs checked up front, summary / wrote / progress lines, file names.
ks_add_test(NAME test_run_lifecycle LABEL cpu SOURCES test_run_lifecycle.c test_run_outputs.c TIMEOUT 400)
target_link_libraries(test_run_lifecycle PRIVATE ks_test_util)
add_dependencies(test_run_lifecycle kernelscope)
set_tests_properties(test_run_lifecycle PROPERTIES RUN_SERIAL TRUE)
# `bench serve` on the CPU backend: in-process viewers over loopback, --record when the build has video.
ks_add_test(NAME test_bench_serve LABEL cpu SOURCES test_bench_serve.c TIMEOUT 300)
target_link_libraries(test_bench_serve PRIVATE ks_test_util)
add_dependencies(test_bench_serve kernelscope)
if(KS_HAVE_VIDEO)
  target_compile_definitions(test_bench_serve PRIVATE KS_TEST_HAVE_VIDEO)
endif()
set_tests_properties(test_bench_serve PROPERTIES LABELS "cpu;gl")
set_property(TEST test_bench_serve APPEND PROPERTY ENVIRONMENT
             "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
ks_add_test(NAME test_signals LABEL cpu SOURCES test_signals.c TIMEOUT 30)
# A named pipe or a folder as --scene / --input: refused at once, one line (issue 21, defect 6).
add_test(NAME test_input_fifo COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/input_fifo.sh $<TARGET_FILE:kernelscope>)
set_tests_properties(test_input_fifo PROPERTIES LABELS "cpu" SKIP_RETURN_CODE 77 TIMEOUT 60)
# A user's own kernel (issue 25, first part): new-kernel, then --kernel-file compiles it (NVRTC, no GPU).
ks_add_test(NAME test_user_kernel LABEL cpu SOURCES test_user_kernel.c TIMEOUT 120)
target_link_libraries(test_user_kernel PRIVATE ks_test_util)

# The binary starts without the NVIDIA driver (the CPU backend): nothing it links
# may need libcuda.so.1 (the CUDA runtime is static and finds the driver itself).
find_program(KS_READELF readelf)
if(KS_READELF)
  add_test(NAME test_no_driver_needed
           COMMAND sh -c "! ${KS_READELF} -d \"$1\" | grep -q 'NEEDED.*libcuda\\.so'" sh $<TARGET_FILE:kernelscope>)
  set_tests_properties(test_no_driver_needed PROPERTIES LABELS cpu)
endif()
# The docs' lists: every package scripts/install-deps.sh installs (docs/install.md), every form of the
# command (docs/reference.md); every relative link of README.md and docs/*.md to a file that exists.
add_test(NAME test_readme_lists COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/readme_lists.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(test_readme_lists PROPERTIES LABELS cpu TIMEOUT 30)
