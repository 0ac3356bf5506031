#!/usr/bin/env bash
# The installed library as someone else's project uses it: `cmake --install`
# into a fresh prefix, then tests/lib_consumer built twice against it, once
# through the CMake package (find_package(kernelscope)) and once through the
# pkg-config file, each run with no LD_LIBRARY_PATH (the CMake build's rpath,
# the pkg-config file's -Wl,-rpath find the library); their pictures must be
# the same bytes.
# Usage: lib_install.sh BUILD_DIR SOURCE_DIR [CFLAGS]   (CFLAGS: a sanitizer build's, for the consumer too)
set -eu
build=$1 src=$2 cflags=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_install.XXXXXX")
ok=0
trap '[ "$ok" = 1 ] && rm -rf "$tmp" || echo "kept $tmp (the scratch of a failed test)"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
lib=$(dirname "$(find "$tmp/prefix" -name 'libkernelscope.so' | head -n 1)")
[ -n "$lib" ] && [ -f "$tmp/prefix/include/kernelscope.h" ] || { echo "FAIL: the install has no library or header"; exit 1; }
# the CMake package
cmake -S "$src/tests/lib_consumer" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >"$tmp/cmake.log" 2>&1 ||
  { cat "$tmp/cmake.log"; echo "FAIL: find_package(kernelscope)"; exit 1; }
cmake --build "$tmp/cmake-build" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; echo "FAIL: building with the package"; exit 1; }
env -u LD_LIBRARY_PATH "$tmp/cmake-build/consumer" "$tmp/a.png"
# the pkg-config file
pc=$(dirname "$(find "$tmp/prefix" -name kernelscope.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs kernelscope) || { echo "FAIL: pkg-config kernelscope"; exit 1; }
cc -std=c11 -Wall -Wextra -Werror $cflags "$src/tests/lib_consumer/consumer.c" $flags -o "$tmp/consumer-pc"
case $flags in *"-Wl,-rpath,$lib "*) ;; *) echo "FAIL: no -Wl,-rpath,$lib in the pkg-config file's flags: $flags"; exit 1 ;; esac
env -u LD_LIBRARY_PATH "$tmp/consumer-pc" "$tmp/b.png"
cmp "$tmp/a.png" "$tmp/b.png" || { echo "FAIL: the two builds' pictures differ"; exit 1; }
echo "ok: find_package(kernelscope) and pkg-config kernelscope ($flags) both build and run the consumer"
ok=1
