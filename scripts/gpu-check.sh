#!/usr/bin/env bash
# Checks kernelscope on a machine with a CUDA GPU: the gpu tests, compute-sanitizer, the
# benchmarks and the screenshots, and prints the figures. Runs on any CUDA GPU, with or without a
# display (a window check runs when DISPLAY is set).
#
#   scripts/gpu-check.sh [--bin DIR] [--bin80 DIR] [--out DIR] [STEP ...] [OUT_DIR]
#
# OUT_DIR (an argument with a "/" in it, e.g. results/counters-h200/) is --out DIR.
#
# STEP is any of (default: tests sanitize bench faults):
#   tests     every test program (gpu tests against the CPU gold, cpu tests too)
#   ptx80     the gpu tests of a build holding only compute_80 PTX, which the driver JIT-compiles:
#             on a newer GPU this runs the sm_80 code paths (built with
#             -DCMAKE_CUDA_ARCHITECTURES=80-virtual into build-ptx80 unless --bin80 is given)
#   sanitize  compute-sanitizer memcheck and racecheck on the gpu tests (quick mode) and memcheck
#             on the app's own frame loop
#   bench     kernelscope bench for every scene (KS_BENCH_ONLY="matmul histogram" picks some), and
#             the JPEG encoders' time at 1920x1080 (test_jpeg_gpu --time); without KS_BENCH_ONLY, or
#             with the word "tables" in it (KS_BENCH_ONLY=tables: those alone, about 3 minutes on an
#             H200), the tables of docs/benchmarks.md (regtile vs cuBLAS, regq vs T_peak, warp vs
#             CUB; default and warm cache) into tables/ and tables.md (scripts/bench-tables.py)
#   live      kernelscope bench live, when the binary has it
#   kernel    a user's kernel (--kernel-file): save to running and the frames meanwhile
#             (scripts/kernel-reload.py), a starter's bench rows beside block3d, and our regq,
#             matmul's regtile, histogram's shared and reduce's sum_shuffle as users' files beside
#             the built-in ones,
#             and --edit's Compile end to end in matmul, histogram and reduce (scripts/kernel-edit.py)
#   serve     kernelscope bench serve (the browser viewer's frame rate, solver cost and key-to-picture
#             latency at 1920x1080; with --browser when Chromium is installed), when the binary has it
#   counters  the hardware counters (counters/, docs/counters.md): tests/counters_probe (what CUPTI
#             offers on this GPU, the probe's kernel set measured, a 50 ms timeline; every CUPTI call
#             traced), tests/test_counters_gpu, and, when ncu exists, the counters against Nsight
#             Compute on the same kernels and sizes (scripts/ncu-compare.py counters --run; 2^28
#             floats, KS_COUNTERS_SIZE=N for another): counters_probe_full.txt (the probe with its
#             trace), counters_test_gpu.log, counters_probe.txt and counters_ours.csv (the compared
#             run), counters_ncu.csv, counters_compare.txt (the table); then the scenes' kernels:
#             kernelscope bench SCENE --counters at its default sizes for laplace3d, matmul, histogram,
#             spheres and reduce (KS_COUNTERS_SCENES="..." for others) into counters_SCENE/, each
#             against ncu on the same launches with --cache-control none, all, and none again
#             (scripts/ncu-compare.py scene, ncu_SCENE/compare.txt), kernelscope bench live without
#             and with --timeline (live_off/, live_timeline/: the timeline's cost), and the docs'
#             "what the counters show" tables from all of it (scripts/counters-tables.py:
#             counters_tables.md). KS_COUNTERS_PARTS="probe scenes live tables" (the default: all)
#             runs some of them, into the same folder, so a long check can be split in several calls
#   ncu       kernelscope's own reduce timings against Nsight Compute's gpu__time_duration.sum
#             (scripts/ncu-compare.py reduce), at 2^24 floats (KS_NCU_N=N for another size), block
#             256, when ncu and tests/perf_reduce exist
#   window    the live view in a real window (needs DISPLAY): keys sent with xdotool, screenshots
#   shots     screenshots of each scene, rendered headless
#   library   libkernelscope with device memory: examples/my_solver (built into tests/), the
#             library's cost to a 16384^2 solver that shows every iteration (tests/perf_viewer),
#             the CuPy example's page rate (scripts/page-fps.py), and the Python examples with
#             CuPy and PyTorch where they are installed, 300 steps each, their last pictures kept,
#             and tests/test_python_gpu.py (device arrays' pictures against host arrays')
#             (the module from python/, the library from --bin)
#   multigpu  several GPUs (needs two, NCCL, and mpirun for its MPI half): test_laplace_multi_gpu,
#             tests/laplace/multigpu_bench.sh, then the scaling benches of docs/scaling.md: strong
#             (regq and tblock at 1024^3, vec2d at 16384^2) and weak (512^3 and 16384^2 a GPU),
#             threaded and under mpirun -np 2, each against one GPU in the same run; then the
#             live view on 2 GPUs (headless, 90 frames of 40 iterations) against the bench's row
#   course    the course's kernels as written (examples/course/, each with its kernelscope: line):
#             test_course_kernels_gpu and test_course_kernels (checked as their line launches them),
#             test_spheres_user_gpu (the spheres contract), then scripts/course-timing.sh: each
#             compiled with nvcc and launched as the course launches it, against its bench row
#             (course_timing.txt; a row off by more than 3 % fails the step)
#   faults    the user-kernel tests whose kernels fault (an out-of-bounds write, an endless loop),
#             which every other step skips (KS_TEST_NO_FAULTS): on some GPUs a fault leaves the GPU
#             unable to switch between busy processes until it is reset (NVIDIA Xid 31, then 109),
#             so they run last, and the system log's Xid lines are kept (xid.txt); then
#             scripts/kernel-faults-live.py saves each into a running live view (faults_live.txt)
# --bin DIR holds kernelscope and tests/ (a build folder); default: build into build-gpu with
# scripts/build.sh for this machine's GPU. Results go to --out (default
# results/gpu-check-DATE/); scripts/ingest-results.sh copies them into docs/ and screenshots/.
set -u
cd "$(dirname "$0")/.."
here=$PWD
bin="" bin80="" out=""
steps=()
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --bin80) bin80=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^set -u$/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    tests|ptx80|sanitize|bench|live|kernel|serve|counters|ncu|window|shots|library|multigpu|course|faults)
      steps+=("$1"); shift ;;
    */*) [ -z "$out" ] || { echo "gpu-check: two output folders: '$out' and '$1'" >&2; exit 2; }
      out=$1; shift ;;
    *) echo "gpu-check: unknown argument '$1' (an output folder needs a '/': ./$1) (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#steps[@]} -gt 0 ] || steps=(tests sanitize bench faults)
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "gpu-check: no NVIDIA GPU found (nvidia-smi)" >&2; exit 2; }

if [ -z "$bin" ]; then
  KS_BUILD_DIR=build-gpu scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=native || exit 1
  bin=build-gpu
fi
bin=$(cd "$bin" && pwd)
out=${out:-results/gpu-check-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" && out=$(cd "$out" && pwd)
export KS_BINARY=$bin/kernelscope KS_TEST_DATA=$here/tests/data KS_BEST_CONFIG=$out/best-config.tsv
export NCCL_NVLS_ENABLE=0
export KS_TEST_NO_FAULTS=1 # the faults step runs them, last
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm --format=csv,noheader |
  tee "$out/device.txt"
"$KS_BINARY" --version | tee -a "$out/device.txt"
status=0
note_rc() { # name rc: 0 passes, 77 is skipped
  case $2 in 0) echo "ok      $1" ;; 77) echo "skipped $1" ;; *) echo "FAILED  $1 (exit $2)"; status=1 ;; esac
}

# The live view on 2 GPUs against the bench: headless, 90 frames of 40 iterations; its median
# Jacobi time a frame over 40 against the 2-GPU row of the strong-scaling bench run just before.
multigpu_live() {
  local tag scene grid kernel bench live
  while read -r tag scene grid kernel; do
    bench=$(awk -v k="$kernel" '$1 == 2 && $2 == 1 && $3 == k { print $6 }' "$out/scaling-$tag.log" | head -n 1)
    timeout -k 10 300 "$KS_BINARY" "$scene" --grid "$grid" --kernel "$kernel" --gpus 2 --headless --frames 90 \
      --iters 40 --out "$out/live-$kernel" >"$out/live-$kernel.log" 2>&1
    note_rc "live $scene --grid $grid --kernel $kernel --gpus 2" $?
    live=$(sed -n 's/.*median ms:.* jacobi \([0-9.]*\).*/\1/p' "$out/live-$kernel.log" | tail -n 1)
    [ -n "$live" ] && [ -n "$bench" ] &&
      awk -v l="$live" -v b="$bench" -v k="$kernel" -v g="$grid" 'BEGIN {
        printf "live %-6s %-6s 2 GPUs: %.4f ms/iter, bench %.4f (%+.1f %%)\n", k, g, l / 40, b, (l / 40 / b - 1) * 100 }' |
      tee -a "$out/multigpu_live.txt"
  done <<'LIVE'
strong3d laplace3d 1024 regq
strong3d laplace3d 1024 tblock
strong2d laplace2d 16384 vec2d
LIVE
}

run_tests() { # DIR label
  local t name rc
  for t in "$1"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    case $name in
      test_app_gpu_bin) "$t" gpu >"$out/$2_$name.log" 2>&1 ;;
      *) "$t" >"$out/$2_$name.log" 2>&1 ;;
    esac
    rc=$?
    note_rc "$2 $name: $(grep -cE '^\[       OK \]' "$out/$2_$name.log") passed" $rc
  done
}

for step in "${steps[@]}"; do
  echo "== $step"
  case $step in
  multigpu)
    "$bin/tests/test_laplace_multi_gpu" >"$out/multigpu_test.log" 2>&1
    note_rc "test_laplace_multi_gpu: $(grep -cE '^\[       OK \]' "$out/multigpu_test.log") passed" $?
    "$here/tests/laplace/multigpu_bench.sh" >"$out/multigpu_bench_test.log" 2>&1
    note_rc "tests/laplace/multigpu_bench.sh" $?
    nvidia-smi topo -m >"$out/multigpu_topo.txt" 2>&1
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpi=(); command -v mpirun >/dev/null 2>&1 && mpi=(mpirun -np 2 --oversubscribe -x PATH -x LD_LIBRARY_PATH)
    while read -r tag scene args; do
      # shellcheck disable=SC2086
      timeout -k 10 900 "$KS_BINARY" bench $scene $args --gpus 1,2 --reps ${KS_MULTIGPU_REPS:-15} --out "$out/scaling-$tag" \
        >"$out/scaling-$tag.log" 2>&1
      note_rc "bench $scene $args --gpus 1,2 (threads)" $?
      cat "$out/scaling-$tag.log"
      if [ ${#mpi[@]} -gt 0 ]; then
        # shellcheck disable=SC2086
        timeout -k 10 900 "${mpi[@]}" "$KS_BINARY" bench $scene $args --gpus 1,2 --reps ${KS_MULTIGPU_REPS:-15} \
          --out "$out/scaling-$tag-mpi" >"$out/scaling-$tag-mpi.log" 2>&1 </dev/null # mpirun reads stdin
        note_rc "mpirun -np 2 bench $scene $args" $?
        cat "$out/scaling-$tag-mpi.log"
      fi
    done <<'RUNS'
strong3d laplace3d --grid 1024 --kernel regq,tblock
strong2d laplace2d --grid 16384 --kernel vec2d
weak3d laplace3d --grid 512 --weak --kernel regq,tblock
weak2d laplace2d --grid 16384 --weak --kernel vec2d
RUNS
    multigpu_live
    ;;
  library)
    lib=$(ls "$bin"/libkernelscope.so 2>/dev/null | head -n 1)
    [ -x "$bin/tests/my_solver" ] && { timeout 120 "$bin/tests/my_solver" 1024 300 >"$out/my_solver.txt" 2>&1
      note_rc "examples/my_solver.cu (1024^2, 300 iterations)" $?; }
    # the library's cost to a solver that shows every iteration, and the page's rate with CuPy
    [ -x "$bin/tests/perf_viewer" ] && { timeout 300 "$bin/tests/perf_viewer" 16384 2000 5 >"$out/perf_viewer.txt" 2>&1
      note_rc "tests/perf_viewer 16384 2000 5" $?; cat "$out/perf_viewer.txt"; }
    PYTHONPATH="$here/python" KERNELSCOPE_LIBRARY="$lib" timeout 120 python3 "$here/examples/heat_cupy.py" \
      --steps 1000000 >"$out/heat_cupy_live.txt" 2>&1 &
    cupy_pid=$!
    for _ in $(seq 300); do grep -q "open http" "$out/heat_cupy_live.txt" && break; sleep 0.1; done
    url=$(sed -n 's/^kernelscope: open //p' "$out/heat_cupy_live.txt" | head -n 1)
    if [ -n "$url" ]; then
      python3 "$here/scripts/page-fps.py" "$url" 8 | tee "$out/heat_cupy_fps.txt"
      note_rc "examples/heat_cupy.py streamed to its page" "${PIPESTATUS[0]}"
    else
      note_rc "examples/heat_cupy.py streamed to its page (no URL: $(tail -n 1 "$out/heat_cupy_live.txt"))" 1
    fi
    kill "$cupy_pid" 2>/dev/null; wait "$cupy_pid" 2>/dev/null
    # CuPy and PyTorch arrays against host arrays, through both interfaces; show() never waits
    PYTHONPATH="$here/python" KERNELSCOPE_LIBRARY="$lib" timeout 300 python3 "$here/tests/test_python_gpu.py" \
      "$out/python_gpu" >"$out/python_gpu.txt" 2>&1
    note_rc "tests/test_python_gpu.py (CuPy, PyTorch)" $?
    cat "$out/python_gpu.txt"
    for ex in heat_cupy torch_field; do
      PYTHONPATH="$here/python" KERNELSCOPE_LIBRARY="$lib" timeout 180 python3 "$here/examples/$ex.py" --steps 300 \
        --save "$out/$ex.png" >"$out/$ex.txt" 2>&1
      rc=$?
      grep -q "No module named" "$out/$ex.txt" && rc=77 # CuPy or PyTorch not installed here
      note_rc "examples/$ex.py (300 steps)" $rc
    done ;;
  faults)
    env -u KS_TEST_NO_FAULTS KS_TEST_FAULTS_ONLY=1 "$bin/tests/test_user_kernel_gpu" >"$out/faults_test_user_kernel_gpu.log" 2>&1
    rc=$?
    note_rc "faults test_user_kernel_gpu: $(grep -cE '^\[       OK \]' "$out/faults_test_user_kernel_gpu.log") passed" $rc
    # the same faults saved into a running live view: refused in the user's words, frames for
    # 60 s after each, a second process still runs on the GPU, SIGINT ends the run in 2 s
    python3 scripts/kernel-faults-live.py --bin "$bin/kernelscope" --after "${KS_FAULTS_AFTER_S:-60}" \
      >"$out/faults_live.txt" 2>&1
    note_rc "faults saved into a live view (faults_live.txt)" $?
    { dmesg 2>/dev/null || journalctl -k 2>/dev/null; } | grep -i 'xid' >"$out/xid.txt"
    [ -s "$out/xid.txt" ] && cat "$out/xid.txt" ;;
  tests) run_tests "$bin" tests ;;
  ptx80)
    if [ -z "$bin80" ]; then
      KS_BUILD_DIR=build-ptx80 scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=80-virtual || exit 1
      bin80=build-ptx80
    fi
    KS_BINARY=$(cd "$bin80" && pwd)/kernelscope
    [ -x "$KS_BINARY" ] && "$KS_BINARY" laplace3d --headless --frames 1 --grid 64 2>&1 | head -n 6 | tee "$out/ptx80_startup.txt"
    for t in "$bin80"/tests/test_*gpu*; do
      [ -x "$t" ] || continue
      name=$(basename "$t")
      if [ "$name" = test_app_gpu_bin ]; then "$t" gpu >"$out/ptx80_$name.log" 2>&1; else "$t" >"$out/ptx80_$name.log" 2>&1; fi
      rc=$?
      note_rc "ptx80 $name: $(grep -cE '^\[       OK \]' "$out/ptx80_$name.log") passed" $rc
    done
    export KS_BINARY=$bin/kernelscope ;;
  sanitize)
    for tool in memcheck racecheck; do
      for t in "$bin"/tests/test_*_gpu; do
        [ -x "$t" ] || continue
        KS_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 "$t" >"$out/san_${tool}_$(basename "$t").log" 2>&1
        rc=$?
        note_rc "$tool $(basename "$t"): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${tool}_$(basename "$t").log" | tail -n 1)" $rc
      done
    done
    i=0
    # every scene's short run from the registry, plus the temporally blocked variant on odd grids
    { "$KS_BINARY" --list-scenes | awk '$2 == "view" && NF > 2 { $2 = ""; print }'
      echo "laplace3d --grid 61x47x33 --kernel tblock --iters 9"
      echo "laplace3d --grid 260x70x23 --kernel tblock --block 32x12 --iters 9"; } >"$out/san_app_runs.txt"
    while read -r args; do
      i=$((i + 1))
      # shellcheck disable=SC2086
      compute-sanitizer --tool memcheck --error-exitcode 9 "$KS_BINARY" $args --headless --frames 4 >"$out/san_app_$i.log" 2>&1
      rc=$?
      note_rc "memcheck kernelscope $args: $(grep -E 'ERROR SUMMARY' "$out/san_app_$i.log" | tail -n 1)" $rc
    done <"$out/san_app_runs.txt"
    ;;
  bench)
    # every scene with a view, as the binary's registry lists them
    all=$("$KS_BINARY" --list-scenes 2>/dev/null | awk '$2 == "view" { print $1 }')
    for scene in ${KS_BENCH_ONLY:-$all}; do
      [ "$scene" = tables ] && continue
      "$KS_BINARY" bench $scene --out "$out" >"$out/bench_$scene.txt" 2>&1
      note_rc "bench $scene" $?
      tail -n 40 "$out/bench_$scene.txt"
    done
    # The tables of docs/benchmarks.md ("At the limit"), each against its reference in the same run:
    # regtile vs cuBLAS at 4096^3 and 8192^3, regq's fastest block vs T_peak at 512^3 and 1024^3, warp
    # vs CUB on 100 MB of text, uniform and all-equal bytes; timed by default (cold under 4x the L2)
    # and warm; scripts/bench-tables.py prints them as Markdown from the CSVs (tables.md).
    if [ -z "${KS_BENCH_ONLY:-}" ] || [[ " $KS_BENCH_ONLY " == *" tables "* ]]; then
      for cache in default warm; do
        t=$out/tables/$cache
        mkdir -p "$t"
        flag=()
        [ "$cache" = warm ] && flag=(--cache warm)
        "$KS_BINARY" bench matmul --size 4096,8192 --kernel regtile "${flag[@]}" --out "$t" >"$t/matmul.txt" 2>&1
        note_rc "tables: bench matmul ($cache)" $?
        if [ "$cache" = default ]; then # 512^3 and 1024^3 are over 4x the L2: warm either way
          "$KS_BINARY" bench laplace3d --grid 512,1024 --kernel regq --out "$t" >"$t/laplace3d.txt" 2>&1
          note_rc "tables: bench laplace3d ($cache)" $?
        fi
        "$KS_BINARY" bench histogram --size 100M --kernel warp,cub "${flag[@]}" --out "$t" >"$t/histogram.txt" 2>&1
        note_rc "tables: bench histogram ($cache)" $?
      done
      python3 "$here/scripts/bench-tables.py" "$out/tables" >"$out/tables.md"
      note_rc "tables: scripts/bench-tables.py" $?
      cat "$out/tables.md"
    fi
    if [ -x "$bin/tests/test_jpeg_gpu" ]; then # JPEG encode time at 1920x1080, nvJPEG and libjpeg-turbo
      "$bin/tests/test_jpeg_gpu" --time >"$out/bench_jpeg.txt" 2>&1
      note_rc "JPEG encoders (test_jpeg_gpu --time)" $?
      cat "$out/bench_jpeg.txt"
    fi ;;
  live)
    if "$KS_BINARY" --help 2>/dev/null | grep -q "bench live"; then
      "$KS_BINARY" bench live --out "$out" >"$out/bench_live.txt" 2>&1
      note_rc "bench live" $?
      tail -n 40 "$out/bench_live.txt"
    fi ;;
  course)
    for t in test_course_kernels_gpu test_course_kernels test_spheres_user_gpu; do
      "$bin/tests/$t" >"$out/course_$t.log" 2>&1
      rc=$?
      note_rc "course $t: $(grep -cE '^\[       OK \]' "$out/course_$t.log") passed" $rc
    done
    scripts/course-timing.sh "$KS_BINARY" "$out/course" 2>&1 | tee "$out/course_timing.log"
    note_rc "course-timing.sh" "${PIPESTATUS[0]}" ;;
  kernel)
    # a user's kernel: save to running (NVRTC, the check, the swap) and the frame interval
    # while a build runs, at two grids; then the starter beside its twin, block3d, in bench
    for g in 256 512; do
      python3 "$here/scripts/kernel-reload.py" --bin "$KS_BINARY" --grid "$g" --saves 11 \
        >"$out/kernel_reload_$g.txt" 2>&1
      note_rc "kernel-reload.py --grid $g" $?
      cat "$out/kernel_reload_$g.txt"
    done
    "$KS_BINARY" new-kernel laplace3d -o "$out/starter3d.cu" >/dev/null
    "$KS_BINARY" bench laplace3d --grid 512 --kernel-file "$out/starter3d.cu" --kernel starter3d.cu \
      --kernel block3d --block 32x4x4 --reps 20 --out "$out/kernel_bench" >"$out/kernel_bench.txt" 2>&1
    note_rc "bench laplace3d --kernel-file" $?
    tail -n 6 "$out/kernel_bench.txt"
    # our fastest one-step kernel as a user's file (new-kernel --from regq) beside the built-in one
    "$KS_BINARY" new-kernel laplace3d --from regq -o "$out/regq_copy.cu" >/dev/null
    "$KS_BINARY" bench laplace3d --grid 512 --kernel-file "$out/regq_copy.cu" --kernel regq_copy.cu \
      --kernel regq --block 32x8 --reps 20 --out "$out/kernel_bench_regq" >"$out/kernel_bench_regq.txt" 2>&1
    note_rc "bench laplace3d --kernel-file (--from regq)" $?
    tail -n 6 "$out/kernel_bench_regq.txt"
    # the other scenes' copies of ours beside the built-in ones: matmul's regtile, reduce's sum_shuffle
    "$KS_BINARY" new-kernel matmul --from regtile -o "$out/regtile_copy.cu" >/dev/null
    "$KS_BINARY" bench matmul --size 4096 --kernel regtile --kernel-file "$out/regtile_copy.cu" \
      --kernel regtile_copy.cu --reps 20 --out "$out/kernel_bench_matmul" >"$out/kernel_bench_matmul.txt" 2>&1
    note_rc "bench matmul --kernel-file (--from regtile)" $?
    grep -E '^(regtile|regtile_copy)' "$out/kernel_bench_matmul.txt"
    "$KS_BINARY" new-kernel reduce --from sum_shuffle -o "$out/shuffle_copy.cu" >/dev/null
    "$KS_BINARY" bench reduce --kernel sum_shuffle --kernel-file "$out/shuffle_copy.cu" --kernel shuffle_copy.cu \
      --block 256x1 --out "$out/kernel_bench_reduce" >"$out/kernel_bench_reduce.txt" 2>&1
    note_rc "bench reduce --kernel-file (--from sum_shuffle)" $?
    grep -E '(sum_shuffle|shuffle_copy)' "$out/kernel_bench_reduce.txt" | grep -v wrote
    "$KS_BINARY" new-kernel histogram --from shared -o "$out/shared_copy.cu" >/dev/null
    "$KS_BINARY" bench histogram --kernel shared --kernel-file "$out/shared_copy.cu" --kernel shared_copy.cu \
      --out "$out/kernel_bench_histogram" >"$out/kernel_bench_histogram.txt" 2>&1
    note_rc "bench histogram --kernel-file (--from shared)" $?
    grep -E '(shared|shared_copy)' "$out/kernel_bench_histogram.txt" | grep -v wrote
    # --edit end to end in the scenes whose kernel files user_files.c serves: the page's Compile
    for sc in matmul histogram reduce; do
      python3 "$here/scripts/kernel-edit.py" --bin "$KS_BINARY" --scene "$sc" --shot "$out/shots" \
        >"$out/kernel_edit_$sc.txt" 2>&1
      note_rc "kernel-edit.py --scene $sc" $?
      cat "$out/kernel_edit_$sc.txt"
    done ;;
  serve)
    if "$KS_BINARY" --help 2>/dev/null | grep -q "bench serve"; then
      browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
      "$KS_BINARY" bench serve ${browser:+--browser "$browser"} --out "$out" >"$out/bench_serve_run.txt" 2>&1
      note_rc "bench serve" $?
      tail -n 20 "$out/bench_serve_run.txt"
    fi ;;
  counters)
    parts=" ${KS_COUNTERS_PARTS:-probe scenes live tables} "
    if [[ $parts == *" probe "* ]]; then
      if [ -x "$bin/tests/counters_probe" ]; then
        # its own file name: the comparison below writes counters_probe.txt for its run of the probe
        "$bin/tests/counters_probe" >"$out/counters_probe_full.txt" 2>&1
        note_rc "counters_probe" $?
        grep -E '^(FAILED|probe |build:|libcupti:|device 0:)|^  (create:|measure:|DRAM from|mean DRAM|[0-9]+ samples)' \
          "$out/counters_probe_full.txt"
        "$bin/tests/test_counters_gpu" >"$out/counters_test_gpu.log" 2>&1
        note_rc "test_counters_gpu: $(grep -cE '^\[       OK \]' "$out/counters_test_gpu.log") passed" $?
        grep -E '^\[  FAILED  \]|^\[  ERROR   \]' "$out/counters_test_gpu.log"
        if command -v ncu >/dev/null; then
          python3 "$here/scripts/ncu-compare.py" counters --run "$bin/tests/counters_probe" \
            --size "${KS_COUNTERS_SIZE:-268435456}" --out "$out" >"$out/counters_compare_run.txt" 2>&1
          rc=$?
          tail -n 3 "$out/counters_compare_run.txt"
          note_rc "ncu-compare counters (counts within 5 % of ncu)" $rc
        else
          echo "skipped ncu-compare counters (no ncu)"
        fi
      else
        echo "skipped counters probe (no tests/counters_probe)"
      fi
    fi
    if [[ $parts == *" scenes "* ]]; then
      # each scene's kernels at the bench's default sizes: counters, then ncu on the same launches
      for scene in ${KS_COUNTERS_SCENES:-laplace3d matmul histogram spheres reduce}; do
        mkdir -p "$out/counters_$scene"
        start=$SECONDS
        "$KS_BINARY" bench "$scene" --counters --out "$out/counters_$scene" >"$out/counters_$scene/bench.txt" 2>&1
        note_rc "bench $scene --counters ($((SECONDS - start)) s)" $?
        # the counters' table (or its line why) and the notice, when there is one
        sed -n '/^hardware counters/,/^kernelscope: wrote/p' "$out/counters_$scene/bench.txt" | grep -v '^kernelscope: wrote'
        grep -E 'counter columns stay empty' "$out/counters_$scene/bench.txt"
        if ! command -v ncu >/dev/null; then
          echo "skipped ncu-compare scene $scene (no ncu)"
        elif [ -f "$out/counters_$scene/counters_$scene.csv" ]; then
          start=$SECONDS
          python3 "$here/scripts/ncu-compare.py" scene --kernelscope "$KS_BINARY" --out "$out" \
            --ours "$out/counters_$scene/counters_$scene.csv" "$scene" >"$out/ncu_$scene.txt" 2>&1
          rc=$?
          grep -E '^[0-9]+ of [0-9]+ figures|^counts outside' "$out/ncu_$scene.txt" || tail -n 3 "$out/ncu_$scene.txt"
          note_rc "ncu-compare scene $scene (counts within 5 % of ncu, $((SECONDS - start)) s)" $rc
        else
          echo "skipped ncu-compare scene $scene (bench --counters measured nothing)"
        fi
      done
    fi
    if [[ $parts == *" live "* ]]; then
      # the timeline's cost: the live loop's solver time without and with it
      for tl in off timeline; do
        args=()
        [ $tl = timeline ] && args=(--timeline)
        mkdir -p "$out/live_$tl"
        "$KS_BINARY" bench live ${args[@]+"${args[@]}"} --out "$out/live_$tl" >"$out/live_$tl/bench.txt" 2>&1
        note_rc "bench live ($tl)" $?
      done
    fi
    if [[ $parts == *" tables "* ]]; then
      python3 "$here/scripts/counters-tables.py" "$out" >"$out/counters_tables.md"
      note_rc "counters-tables.py: $out/counters_tables.md" $?
      cat "$out/counters_tables.md"
    fi ;;
  ncu)
    if ! command -v ncu >/dev/null || [ ! -x "$bin/tests/perf_reduce" ]; then echo "skipped ncu (no ncu or perf_reduce)"; continue; fi
    n=${KS_NCU_N:-16777216}
    "$KS_BINARY" bench reduce --size "$n" --block 256x1 --out "$out/ncu" >"$out/ncu_bench_reduce.txt" 2>&1
    note_rc "bench reduce --size $n" $?
    # single runs under the profiler (each kernel replayed alone); the bench's own timing above ran without it
    KS_PERF_SPAN_MS=0.001 KS_PERF_REPS=3 KS_PERF_WARMUP=1 ncu --clock-control none --metrics gpu__time_duration.sum \
      --csv --log-file "$out/ncu_reduce.csv" "$bin/tests/perf_reduce" "$n" >"$out/ncu_perf.log" 2>&1
    note_rc "ncu perf_reduce $n" $?
    python3 "$here/scripts/ncu-compare.py" reduce "$out/ncu_reduce.csv" "$out/ncu_bench_reduce.txt" all "$n" \
      | tee "$out/ncu_compare_reduce.txt"
    note_rc "ncu-compare reduce" "${PIPESTATUS[0]}" ;;
  window)
    if [ -z "${DISPLAY:-}" ]; then echo "skipped window (no DISPLAY)"; continue; fi
    bash tests/keys_window.sh "$KS_BINARY" cuda >"$out/window_keys.log" 2>&1
    note_rc "window keys and mouse (CUDA backend)" $?
    if [ -x "$bin/tests/test_app_gpu_bin" ]; then
      "$bin/tests/test_app_gpu_bin" window >"$out/window_test_app.log" 2>&1
      note_rc "window picture against the CPU backend" $?
    fi
    mkdir -p "$out/shots"
    # matmul and histogram read --size as their own sizes; their window is 1280x800 by default
    for args in "laplace3d --grid 256 --iters 100 --size 1280x800" "laplace2d --colormap turbo --iters 400 --size 1280x800" \
                "spheres --spheres 1024 --mem binned --size 1280x800" "matmul --size 1024" "histogram"; do
      name=${args%% *}
      "$KS_BINARY" --help 2>/dev/null | grep -q "$name" || continue
      "$KS_BINARY" $args --window --frames 150 --save-every 150 --out "$out/shots/w" \
        >"$out/window_$name.log" 2>&1
      note_rc "window $name" $?
      f=$(ls "$out"/shots/w/"$name"*.png 2>/dev/null | tail -n 1)
      [ -n "$f" ] && mv "$f" "$out/shots/${name}_window.png"
      [ -f "$out/shots/w/${name}_timings.csv" ] && mv "$out/shots/w/${name}_timings.csv" "$out/window_${name}_timings.csv"
    done
    rm -rf "$out/shots/w" ;;
  shots)
    mkdir -p "$out/shots"
    shoot() { # name frames args...: one headless run, its last picture kept as shots/NAME.png
      local name=$1 frames=$2 scene=$3
      shift 2
      # shellcheck disable=SC2068
      "$KS_BINARY" $@ --headless --frames "$frames" --save-every "$frames" \
        --out "$out/shots/h" >"$out/shot_$name.log" 2>&1
      f=$(ls "$out"/shots/h/"$scene"*.png 2>/dev/null | grep -v field | tail -n 1)
      [ -n "$f" ] && mv "$f" "$out/shots/$name.png" && echo "shot $name.png"
      rm -rf "$out/shots/h"
    }
    # the variants worth a picture of their own; then every other scene of the registry as it starts
    while read -r name frames args; do
      # shellcheck disable=SC2086
      shoot "$name" "$frames" $args
    done <<'EOF'
laplace3d 150 laplace3d --grid 256 --iters 200 --size 1280x800
laplace3d_kmarch_sine 60 laplace3d --bc sine --colormap inferno --kernel kmarch --iters 100 --size 1280x800
laplace2d 100 laplace2d --colormap turbo --iters 400 --size 1280x800
spheres_global 30 spheres --mem global --spheres 1024 --size 1280x800
spheres_readonly 30 spheres --mem readonly --spheres 1024 --size 1280x800
spheres_constant 30 spheres --mem constant --spheres 1024 --size 1280x800
spheres_shared 30 spheres --mem shared --spheres 1024 --size 1280x800
spheres_binned 30 spheres --mem binned --spheres 1024 --size 1280x800
matmul 30 matmul --size 2048
histogram 60 histogram
EOF
    for scene in $("$KS_BINARY" --list-scenes | awk '$2 == "view" { print $1 }'); do
      [ -f "$out/shots/$scene.png" ] || shoot "$scene" 60 "$scene"
    done
    ;;
  esac
done
echo "results in $out"
[ $status -eq 0 ] && echo "gpu-check: all passed" || echo "gpu-check: FAILURES (see above)"
exit $status
