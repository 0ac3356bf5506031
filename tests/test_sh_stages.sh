#!/usr/bin/env bash
# scripts/test.sh runs every stage even when one fails, ends with a one-line
# summary naming each stage and its result, and exits non-zero. Run on a copy
# of the script in a scratch tree whose build.sh, install-deps.sh and ctest are
# stubs: the main ctest stage fails, the others pass.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/ks-teststages-XXXXXX)
mkdir -p "$tmp/scripts" "$tmp/bin"
cp "$src/scripts/test.sh" "$tmp/scripts/"
printf '#!/bin/sh\nexit 0\n' > "$tmp/scripts/install-deps.sh"
# build.sh: makes the folder; a main build that says it has CUDA, so every stage runs
cat > "$tmp/scripts/build.sh" <<'STUB'
#!/bin/sh
mkdir -p "$KS_BUILD_DIR"
[ "$KS_BUILD_DIR" = build ] && echo 'KS_CUDA:BOOL=ON' > build/CMakeCache.txt
echo "built $KS_BUILD_DIR" >> "$KS_STAGES_LOG"
exit 0
STUB
# ctest: fails in build/, passes elsewhere
cat > "$tmp/bin/ctest" <<'STUB'
#!/bin/sh
echo "ctest in $(basename "$PWD")" >> "$KS_STAGES_LOG"
[ "$(basename "$PWD")" != build ]
STUB
chmod +x "$tmp/scripts/"*.sh "$tmp/bin/ctest"
: > "$tmp/stages.log"
out=$(cd "$tmp" && KS_STAGES_LOG="$tmp/stages.log" PATH="$tmp/bin:$PATH" scripts/test.sh 2>&1)
rc=$?
last=$(printf '%s\n' "$out" | tail -n 1)
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
check "exit status non-zero (got $rc)" '[ "$rc" -ne 0 ]'
check "asan stage ran after the failed main stage" 'grep -q "ctest in build-asan" "$tmp/stages.log"'
check "no-cuda stage ran" 'grep -q "ctest in build-nocuda" "$tmp/stages.log"'
check "summary line: $last" 'printf "%s" "$last" | grep -q "main ctest FAILED.*asan/ubsan cpu passed.*no-cuda cpu passed"'
if [ "$fail" = 0 ]; then
  rm -rf "$tmp"
else
  printf '%s\n' "$out"
  echo "kept $tmp"
fi
exit "$fail"
