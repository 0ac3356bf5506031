#!/usr/bin/env bash
# libkernelscope exports the calls lib/kernelscope.h declares and nothing else
# (lib/kernelscope.map): a helper that the library's files share must not be
# named ks_viewer_ (the map's pattern would export it), and none of the app's
# layers inside the library may reach a program that links it.
# Usage: lib_exports.sh LIBRARY HEADER CC NM
set -eu
lib=$1 header=$2 cc=$3 nm=$4
# the header without its comments: the names that a '(' follows are its calls
declared=$("$cc" -E -P -x c "$header" | grep -o 'ks_viewer_[a-z0-9_]*[[:space:]]*(' | tr -d '( \t' | sort -u)
exported=$("$nm" -D --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u)
[ -n "$declared" ] || { echo "FAIL: no ks_viewer_ calls found in $header"; exit 1; }
if [ "$declared" != "$exported" ]; then
  echo "FAIL: the library's exports differ from the header's calls (< declared, > exported):"
  diff <(echo "$declared") <(echo "$exported") || true
  exit 1
fi
echo "ok: $(echo "$declared" | wc -l) calls, each declared in the header and exported, nothing else"
