#!/usr/bin/env bash
# The scaling bench on two GPUs, threaded and under mpirun: both check their
# field bit for bit against the CPU gold before timing (so they give the same
# field) and write the CSV the issue names; rank 0 under compute-sanitizer
# finds no error. The live view on two GPUs, threaded and under mpirun, ends
# with the field of one GPU, bit for bit. Exits 77 (skipped) with fewer than two GPUs, without NCCL or
# MPI in the build, or without mpirun.
set -u
bin=${KS_BINARY:?KS_BINARY names the kernelscope binary}
gpus=0
command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" -lt 2 ]; then echo "fewer than two GPUs: skipped"; exit 77; fi
tmp=$(mktemp -d /tmp/ks-multigpu-XXXXXX)
fails=0
header='device,gpus,ranks,variant,grid,block,ms_per_iter,t_eff_gbs,speedup,efficiency,halo_ms,hidden_share,cc'
check_run() { # check_run NAME RANKS SCENE: the log says bit for bit, the CSV has 2-GPU rows of RANKS ranks
  local name=$1 ranks=$2 scene=$3 csv="$tmp/$1/bench_$3_scaling.csv"
  if ! grep -q "bit for bit equal" "$tmp/$name.log"; then
    echo "FAIL: $name: no bit-for-bit check in its log"; fails=$((fails + 1)); return
  fi
  if [ "$(head -n 1 "$csv" 2>/dev/null)" != "$header" ]; then
    echo "FAIL: $name: $csv has no CSV header"; fails=$((fails + 1)); return
  fi
  if ! awk -F, -v r="$ranks" 'NR > 1 && $2 == 2 && $3 == r && $9 > 0 { ok = 1 } END { exit !ok }' "$csv"; then
    echo "FAIL: $name: no 2-GPU row with $ranks rank(s) and a speed-up"; fails=$((fails + 1)); return
  fi
  [ -s "$tmp/$name/bench_${scene}_scaling.png" ] || { echo "FAIL: $name: no chart"; fails=$((fails + 1)); return; }
  echo "ok: $name"
  cat "$tmp/$name.log"
}
for scene in laplace3d laplace2d; do
  grid=64; [ $scene = laplace2d ] && grid=1024
  "$bin" bench $scene --gpus 1,2 --grid $grid --reps 3 --out "$tmp/threads-$scene" >"$tmp/threads-$scene.log" 2>&1 ||
    { echo "FAIL: threaded $scene exited $?"; cat "$tmp/threads-$scene.log"; fails=$((fails + 1)); }
  check_run threads-$scene 1 $scene
done
# The live view on two GPUs (headless) ends with the same field as on one, bit for bit.
for args in "laplace3d --grid 61x47x45 --kernel regq --iters 9" "laplace3d --grid 64 --kernel tblock --iters 10" \
            "laplace3d --grid 40x36x38 --kernel block3d --iters 3" "laplace2d --grid 301x199 --kernel vec2d --iters 7"; do
  # shellcheck disable=SC2086
  "$bin" $args --headless --frames 4 --gpus 1 --dump-field "$tmp/one.npy" >"$tmp/live1.log" 2>&1 &&
    "$bin" $args --headless --frames 4 --gpus 2 --dump-field "$tmp/two.npy" --save-every 4 --out "$tmp/live2" \
      >"$tmp/live2.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || ! cmp -s "$tmp/one.npy" "$tmp/two.npy"; then
    echo "FAIL: live $args: 1 and 2 GPUs differ (exit $rc)"; cat "$tmp/live1.log" "$tmp/live2.log"; fails=$((fails + 1))
  else
    echo "ok: live $args: the same field on 1 and 2 GPUs"
  fi
done
if ! command -v mpirun >/dev/null 2>&1; then
  echo "no mpirun: the MPI half is skipped"
  [ "$fails" -eq 0 ] && rm -rf "$tmp"
  [ "$fails" -eq 0 ] && exit 77
  exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi=(mpirun -np 2 --oversubscribe -x PATH -x LD_LIBRARY_PATH -x NCCL_DEBUG)
"${mpi[@]}" "$bin" bench laplace3d --grid 64 --reps 3 --out "$tmp/mpi-laplace3d" >"$tmp/mpi-laplace3d.log" 2>&1 </dev/null
rc=$?
if grep -q "built without MPI" "$tmp/mpi-laplace3d.log"; then
  echo "this kernelscope has no MPI: the MPI half is skipped"
else
  [ $rc -eq 0 ] || { echo "FAIL: mpirun laplace3d exited $rc"; cat "$tmp/mpi-laplace3d.log"; fails=$((fails + 1)); }
  check_run mpi-laplace3d 2 laplace3d
  # the live view under mpirun (rank 0 shows, rank 1 follows): the same field as one GPU
  for args in "laplace3d --grid 61x47x45 --kernel tblock --iters 10" "laplace2d --grid 301x199 --kernel vec2d --iters 7"; do
    # shellcheck disable=SC2086
    "$bin" $args --headless --frames 4 --gpus 1 --dump-field "$tmp/one.npy" >"$tmp/live1.log" 2>&1 &&
      "${mpi[@]}" "$bin" $args --headless --frames 4 --dump-field "$tmp/mpi.npy" --save-every 4 --out "$tmp/livempi" \
        >"$tmp/livempi.log" 2>&1 </dev/null
    rc=$?
    if [ $rc -ne 0 ] || ! cmp -s "$tmp/one.npy" "$tmp/mpi.npy"; then
      echo "FAIL: mpirun live $args: differs from one GPU (exit $rc)"; cat "$tmp/livempi.log"; fails=$((fails + 1))
    else
      echo "ok: mpirun -np 2 live $args: the same field as one GPU"
    fi
  done
  # rank 0 under compute-sanitizer (memcheck; NCCL's own probing calls that fail by design are
  # not counted: --report-api-errors no), rank 1 plain
  if command -v compute-sanitizer >/dev/null 2>&1; then
    "${mpi[@]}" sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec compute-sanitizer --report-api-errors no --error-exitcode 9 "$0" "$@"; else exec "$0" "$@"; fi' \
      "$bin" bench laplace3d --grid 40 --kernel regq,tblock --reps 2 --out "$tmp/san" >"$tmp/san.log" 2>&1 </dev/null
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "ERROR SUMMARY: 0 errors" "$tmp/san.log"; then
      echo "FAIL: compute-sanitizer on rank 0 (exit $rc):"; tail -n 30 "$tmp/san.log"; fails=$((fails + 1))
    else
      echo "ok: compute-sanitizer on rank 0: $(grep 'ERROR SUMMARY' "$tmp/san.log")"
    fi
  fi
fi
if [ "$fails" -eq 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
[ "$fails" -eq 0 ]
