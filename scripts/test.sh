#!/usr/bin/env bash
# One command: install what is missing, build, run every test (ctest).
# Then rebuilds the host code with ASan/UBSan and runs the cpu-labelled tests again,
# and builds without CUDA (as on a machine with no CUDA Toolkit) and runs its cpu tests.
# Last, builds every libFuzzer target with clang and runs each for 20 s (scripts/fuzz.sh):
# a target that no longer builds, or a finding, fails the run.
# gpu-labelled tests report "skipped" (exit 77) where there is no CUDA device.
# Every stage runs even when an earlier one fails; the last line names each
# stage and its result, with what failed in it (the failed tests, the fuzz
# targets, a build), and the exit status is non-zero when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

summary=()
failed=0
# What failed inside the running stage, one a line (note), for the summary.
stage_notes=$(mktemp /tmp/ks-test-stage-XXXXXX)
trap 'rm -f "$stage_notes"' EXIT
note() { printf '%s\n' "$*" >>"$stage_notes"; }
# The notes as "a, b, c" (the first 6, then how many more).
notes_line() {
  awk 'NR <= 6 { printf "%s%s", (NR > 1 ? ", " : ""), $0 } END { if (NR > 6) printf ", and %d more", NR - 6 }' "$stage_notes"
}
# stage NAME COMMAND...: runs it in a subshell that stops at its first failing
# command (not inside an `if`, where bash would ignore set -e), records the result.
stage() {
  local name=$1 rc
  shift
  : >"$stage_notes"
  set +e
  ( set -e; "$@" )
  rc=$?
  set -e
  if [ "$rc" = 0 ]; then
    summary+=("$name passed")
  elif [ -s "$stage_notes" ]; then
    summary+=("$name FAILED (exit $rc: $(notes_line))")
    failed=1
  else
    summary+=("$name FAILED (exit $rc)")
    failed=1
  fi
}
# build DIR CMAKE_ARGS...: scripts/build.sh into DIR; a failure is noted as that build's.
build() {
  local dir=$1 rc=0
  shift
  KS_BUILD_DIR=$dir scripts/build.sh "$@" || rc=$?
  [ "$rc" = 0 ] || note "the build in $dir/"
  return "$rc"
}
# run_ctest DIR CTEST_ARGS...: ctest in DIR, its output kept in DIR/ctest-output.log;
# each test in ctest's closing "The following tests FAILED" list is noted, with
# the reason when it is not a plain failure ("test_x timed out", "test_y (SEGFAULT)").
run_ctest() {
  local dir=$1 rc=0
  shift
  (cd "$dir" && ctest "$@") | tee "$dir/ctest-output.log" || rc=$?
  [ "$rc" = 0 ] && return 0
  awk '/^The following tests FAILED:/ { list = 1; next }
       list && /^[ \t]+[0-9]+ - / {
         sub(/^[ \t]+[0-9]+ - /, "")
         if (sub(/ \(Failed\)$/, "")) print
         else if (sub(/ \(Timeout\)$/, "")) print $0 " timed out"
         else print
         next }
       list { list = 0 }' "$dir/ctest-output.log" >>"$stage_notes"
  return "$rc"
}

main_stage() {
  build build
  run_ctest build --output-on-failure -j "$(nproc)"
}
asan_stage() {
  # CUDA for one architecture, as PTX only (75-virtual: nvcc's front end once an
  # object, no ptxas, no machine code). This stage checks the host code under
  # ASan/UBSan with the cpu tests; the sanitizers instrument the C code only, not
  # the CUDA objects, which the main stage builds for every architecture. Six
  # architectures again cost about 12 minutes on a loaded 2-core machine for
  # nothing this stage checks (PTX only: about a third of the CPU time). Where a
  # cpu test does reach a GPU, the driver compiles the PTX for it (sm_75 and up).
  build build-asan -DKS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CUDA_ARCHITECTURES=75-virtual
  # Leak detection on everywhere, GL tests included: sanitizer builds keep the
  # GL driver loaded until exit (render/window.c), see tests/CMakeLists.txt.
  # intercept_tls_get_addr=0: the sanitizer runtime's own record of dynamic TLS
  # (GL drivers loaded with dlopen have it) crashed LeakSanitizer's tracer at exit
  # ("Tracer caught signal 11", every time in test_video_cli's --out --record run);
  # without it the DTV is still scanned as ordinary heap reachable from the static
  # TLS, so leaks are still found.
  ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:intercept_tls_get_addr=0 \
    run_ctest build-asan --output-on-failure -L cpu -j "$(nproc)"
}
nocuda_stage() {
  build build-nocuda -DKS_CUDA=OFF
  # the tests labelled same_without_cuda ran in the main stage (tests/CMakeLists.txt says why)
  run_ctest build-nocuda --output-on-failure -L cpu -LE same_without_cuda -j "$(nproc)"
}

stage "main ctest" main_stage
if [ "${KS_SKIP_SANITIZE:-0}" != 1 ]; then
  stage "asan/ubsan cpu" asan_stage
else
  summary+=("asan/ubsan cpu skipped (KS_SKIP_SANITIZE=1)")
fi
if [ "${KS_SKIP_NOCUDA:-0}" != 1 ] && [ -f build/CMakeCache.txt ] && grep -q '^KS_CUDA:BOOL=ON' build/CMakeCache.txt; then
  # Only where the main build had CUDA: otherwise it was this build already.
  stage "no-cuda cpu" nocuda_stage
else
  summary+=("no-cuda cpu skipped (the main build has no CUDA, or KS_SKIP_NOCUDA=1)")
fi
# fuzz.sh lists the targets that did not build or found something in build-fuzz/failed-targets
fuzz_stage() {
  local rc=0
  rm -f build-fuzz/failed-targets
  KS_FUZZ_DIR=build-fuzz scripts/fuzz.sh "${KS_FUZZ_SECONDS:-20}" || rc=$?
  [ "$rc" = 0 ] || [ ! -s build-fuzz/failed-targets ] || cat build-fuzz/failed-targets >>"$stage_notes"
  return "$rc"
}
if [ "${KS_SKIP_FUZZ:-0}" != 1 ]; then
  stage "fuzz" fuzz_stage
else
  summary+=("fuzz skipped (KS_SKIP_FUZZ=1)")
fi

line=$(IFS=';'; echo "${summary[*]}")
echo "scripts/test.sh: ${line//;/; }"
exit "$failed"
