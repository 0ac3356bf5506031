#!/usr/bin/env bash
# scripts/test.sh runs every stage even when one fails, ends with a one-line
# summary naming each stage, its result and what failed in it (the failed
# tests, the fuzz targets, a build), and exits non-zero. Run on a copy of the
# script in a scratch tree whose build.sh, fuzz.sh, install-deps.sh and ctest
# are stubs: first the main ctest (two failed tests, one timed out) and the
# fuzz stage (one target) fail, the others pass; then the no-CUDA build fails
# and everything else passes.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/ks-teststages-XXXXXX)
mkdir -p "$tmp/scripts" "$tmp/bin"
cp "$src/scripts/test.sh" "$tmp/scripts/"
printf '#!/bin/sh\nexit 0\n' > "$tmp/scripts/install-deps.sh"
# build.sh: makes the folder; a main build that says it has CUDA, so every stage runs;
# fails in $KS_STUB_BUILD_FAILS
cat > "$tmp/scripts/build.sh" <<'STUB'
#!/bin/sh
mkdir -p "$KS_BUILD_DIR"
[ "$KS_BUILD_DIR" = build ] && echo 'KS_CUDA:BOOL=ON' > build/CMakeCache.txt
echo "built $KS_BUILD_DIR $*" >> "$KS_STAGES_LOG"
[ "$KS_BUILD_DIR" != "${KS_STUB_BUILD_FAILS:-}" ]
STUB
# ctest: in $KS_STUB_CTEST_FAILS it fails as ctest does (its closing list, exit 8), passes elsewhere
cat > "$tmp/bin/ctest" <<'STUB'
#!/bin/sh
echo "ctest in $(basename "$PWD")" >> "$KS_STAGES_LOG"
[ "$(basename "$PWD")" != "${KS_STUB_CTEST_FAILS:-}" ] && { echo "100% tests passed"; exit 0; }
cat <<'OUT'
 3/40 Test  #3: test_video_cli ...................***Failed   12.00 sec
80% tests passed, 2 tests failed out of 40

The following tests did not run:
	  7 - test_app_gpu (Skipped)

The following tests FAILED:
	  3 - test_video_cli (Failed)
	 31 - test_run_lifecycle (Timeout)
Errors while running CTest
OUT
exit 8
STUB
# fuzz.sh: with KS_STUB_FUZZ_FAILS, lists that target as failed and exits 1
cat > "$tmp/scripts/fuzz.sh" <<'STUB'
#!/bin/sh
mkdir -p "$KS_FUZZ_DIR"
echo "fuzz in $KS_FUZZ_DIR" >> "$KS_STAGES_LOG"
[ -z "${KS_STUB_FUZZ_FAILS:-}" ] && exit 0
echo "$KS_STUB_FUZZ_FAILS" > "$KS_FUZZ_DIR/failed-targets"
exit 1
STUB
chmod +x "$tmp/scripts/"*.sh "$tmp/bin/ctest"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
has() { printf '%s' "$last" | grep -qF -- "$1"; }

: > "$tmp/stages.log"
out=$(cd "$tmp" && KS_STAGES_LOG="$tmp/stages.log" PATH="$tmp/bin:$PATH" KS_STUB_CTEST_FAILS=build \
      KS_STUB_FUZZ_FAILS=fuzz_route scripts/test.sh 2>&1)
rc=$?
last=$(printf '%s\n' "$out" | tail -n 1)
check "exit status non-zero (got $rc)" '[ "$rc" -ne 0 ]'
check "asan stage ran after the failed main stage" 'grep -q "ctest in build-asan" "$tmp/stages.log"'
check "no-cuda stage ran" 'grep -q "ctest in build-nocuda" "$tmp/stages.log"'
check "fuzz stage ran" 'grep -q "fuzz in build-fuzz" "$tmp/stages.log"'
check "the asan build is for one PTX architecture" 'grep -q "built build-asan .*-DCMAKE_CUDA_ARCHITECTURES=75-virtual" "$tmp/stages.log"'
check "summary line: $last" 'printf "%s" "$last" | grep -q "main ctest FAILED.*asan/ubsan cpu passed.*no-cuda cpu passed.*fuzz FAILED"'
check "the main stage names its failed tests: $last" 'has "main ctest FAILED (exit 8: test_video_cli, test_run_lifecycle timed out)"'
check "a skipped test is not named: $last" '! has test_app_gpu'
check "the fuzz stage names its target: $last" 'has "fuzz FAILED (exit 1: fuzz_route)"'
check "ctest's output is still shown" 'printf "%s" "$out" | grep -q "3/40 Test  #3: test_video_cli"'

# a failed build is named, and a later passing stage names nothing
: > "$tmp/stages.log"
out2=$(cd "$tmp" && KS_STAGES_LOG="$tmp/stages.log" PATH="$tmp/bin:$PATH" KS_STUB_BUILD_FAILS=build-nocuda \
       scripts/test.sh 2>&1)
rc=$?
last=$(printf '%s\n' "$out2" | tail -n 1)
check "exit status non-zero when a build fails (got $rc)" '[ "$rc" -ne 0 ]'
check "the failed build is named: $last" 'has "no-cuda cpu FAILED (exit 1: the build in build-nocuda/)"'
check "no ctest after the failed build" '! grep -q "ctest in build-nocuda" "$tmp/stages.log"'
check "the other stages passed: $last" 'has "main ctest passed; asan/ubsan cpu passed; no-cuda cpu FAILED" && has "fuzz passed"'
if [ "$fail" = 0 ]; then
  rm -rf "$tmp"
else
  printf '%s\n----\n%s\n' "$out" "$out2"
  echo "kept $tmp"
fi
exit "$fail"
