#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/build-device.sh
# here and a device call carrying [".gl", ".carry-main"]:
#   bash .carry-main/device-check.sh [tests] [sanitize] [bench] [shots] [ncu]   (default: all)
# Everything it writes goes to a work folder packed into $OUT/results.tar.gz;
# summaries go to stdout.
set -u
source .gl/gl-env.sh
B=$PWD/.carry-main/bin
W=/tmp/ks-results
rm -rf "$W" && mkdir -p "$W"
export KS_BINARY=$B/kernelscope KS_TEST_DATA=$PWD/tests/data KS_BEST_CONFIG=$W/best-config.tsv
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
what=${*:-tests sanitize bench shots}
status=0
run() { echo "== $*"; "$@"; local rc=$?; [ $rc -eq 0 ] || [ $rc -eq 77 ] || { echo "!! exit $rc: $*"; status=1; }; return 0; }
for w in $what; do
  case $w in
  tests)
    for t in "$B"/test_*; do
      name=$(basename "$t")
      case $name in
        test_app_gpu_bin) run "$t" gpu >"$W/$name.log" 2>&1 ;;
        *) run "$t" >"$W/$name.log" 2>&1 ;;
      esac
      echo "$name: $(grep -E '^\[  (PASSED|FAILED)|SKIPPED|^\[  ERROR' "$W/$name.log" | tr '\n' ' ')"
    done ;;
  sanitize)
    for tool in memcheck racecheck; do
      for t in test_laplace_gpu test_spheres_gpu test_histogram_gpu; do
        [ -x "$B/$t" ] || continue
        KS_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 "$B/$t" >"$W/san_${tool}_$t.log" 2>&1
        echo "$tool $t: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/san_${tool}_$t.log" | tail -1)"
      done
    done
    # The whole app: interop, readback, residual and slice kernels in a real frame loop.
    for scene in "laplace3d --grid 61x47x33 --kernel tblock" "laplace3d --grid 260x70x23 --kernel tblock --block 32x12" "laplace3d --grid 64 --kernel regq" "laplace2d --grid 301x199" "spheres --spheres 300 --mem binned"; do
      compute-sanitizer --tool memcheck --error-exitcode 9 "$B/kernelscope" $scene --headless --frames 4 --iters 9 >"$W/san_app.log" 2>&1
      echo "memcheck kernelscope $scene: exit $? $(grep -E 'ERROR SUMMARY' "$W/san_app.log" | tail -1)"
    done ;;
  bench)
    run "$B/kernelscope" bench laplace3d --out "$W" >"$W/bench3d.txt" 2>&1; tail -n 60 "$W/bench3d.txt"
    run "$B/kernelscope" bench laplace2d --out "$W" >"$W/bench2d.txt" 2>&1; tail -n 45 "$W/bench2d.txt"
    if "$B/kernelscope" --help | grep -q "bench laplace3d|laplace2d|spheres"; then
      run "$B/kernelscope" bench spheres --out "$W" >"$W/bench_spheres.txt" 2>&1; tail -n 40 "$W/bench_spheres.txt"
    fi
    if "$B/kernelscope" --help | grep -q "|histogram"; then
      run "$B/kernelscope" bench histogram --out "$W" >"$W/bench_histogram.txt" 2>&1; tail -n 20 "$W/bench_histogram.txt"
    fi ;;
  shots)
    S=$W/shots; mkdir -p "$S"
    "$B/kernelscope" laplace3d --headless --frames 150 --iters 200 --save-every 150 --out "$S" --size 1280x800 >/dev/null 2>&1 && mv "$S/laplace3d_000150.png" "$S/laplace3d.png"
    "$B/kernelscope" laplace3d --headless --frames 60 --iters 100 --save-every 60 --out "$S" --size 1280x800 --bc sine --colormap inferno --kernel kmarch >/dev/null 2>&1 && mv "$S/laplace3d_000060.png" "$S/laplace3d_kmarch_sine.png"
    "$B/kernelscope" laplace2d --headless --frames 100 --iters 400 --save-every 100 --out "$S" --size 1280x800 --colormap turbo >/dev/null 2>&1 && mv "$S/laplace2d_000100.png" "$S/laplace2d.png"
    for mem in global readonly constant shared binned; do
      "$B/kernelscope" spheres --headless --frames 30 --save-every 30 --out "$S" --size 1280x800 --mem $mem --spheres 1024 >/dev/null 2>&1 && mv "$S/spheres_${mem}_000030.png" "$S/spheres_$mem.png"
    done
    if "$B/kernelscope" --help | grep -q "|histogram"; then
      "$B/kernelscope" histogram --headless --frames 120 --save-every 120 --out "$S" >/dev/null 2>&1 && mv "$S/histogram_warp_000120.png" "$S/histogram_warp.png"
    fi
    rm -f "$S"/*.csv
    ls "$S" ;;
  ncu)
    # Bench and overlay times against Nsight Compute's kernel durations (clocks left alone).
    mkdir -p "$W/ncu"
    N="ncu --clock-control none --metrics gpu__time_duration.sum -k regex:jacobi --csv --print-units base"
    for kb in "laplace3d 512 kmarch 128x2 1" "laplace3d 512 block3d 32x8x2 1" "laplace3d 512 regq 32x8 1" \
              "laplace3d 512 tblock 32x12 4" "laplace2d 8192 block2d 128x2 1" "laplace2d 8192 smem2d 32x8 1" \
              "laplace2d 8192 vec2d 64x4 1"; do
      set -- $kb
      $N "$B/kernelscope" bench $1 --grid $2 --kernel $3 --block $4 --reps 9 --out "$W/ncu" >"$W/ncu_bench_$3.csv" 2>/dev/null
      "$B/kernelscope" bench $1 --grid $2 --kernel $3 --block $4 --reps 9 --out "$W/ncu" >"$W/bench_$3.txt" 2>&1
      echo "$3 $(python3 .carry-main/ncu-compare.py bench "$W/ncu_bench_$3.csv" "$W/bench_$3.txt" $3 $5)"
    done
    for sk in "laplace3d 512 regq" "laplace3d 512 kmarch" "laplace3d 512 tblock" "laplace2d 8192 vec2d"; do
      set -- $sk
      L=$W/live_$3; mkdir -p "$L"
      $N "$B/kernelscope" $1 --headless --grid $2 --kernel $3 --iters 8 --frames 6 >"$W/ncu_live_$3.csv" 2>/dev/null
      "$B/kernelscope" $1 --headless --grid $2 --kernel $3 --iters 8 --frames 60 --save-every 60 --out "$L" >/dev/null 2>&1
      echo "live $3 $(python3 .carry-main/ncu-compare.py live "$W/ncu_live_$3.csv" "$L/$1_timings.csv" 8 6)"
    done ;;
  esac
done
tar -C "$W" -czf "${OUT:-/tmp}/results.tar.gz" .
exit $status
