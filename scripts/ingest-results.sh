#!/usr/bin/env bash
# Files the results of scripts/gpu-check.sh (its results folder, or a .tar.gz of it) into the
# repository: bench tables and CSVs into docs/results/, bench charts and screenshots into
# screenshots/.
#   scripts/ingest-results.sh RESULTS_DIR|RESULTS.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(realpath "$1")
if [ -f "$src" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tar -C "$tmp" -xzf "$src"
  src=$tmp
fi
mkdir -p docs/results screenshots
for f in "$src"/device.txt "$src"/bench_*.txt "$src"/bench_*.csv; do
  [ -f "$f" ] && cp "$f" docs/results/ && echo "$(basename "$f") -> docs/results/"
done
for f in "$src"/bench_*.png "$src"/roofline_*.png "$src"/shots/*.png; do
  [ -f "$f" ] && cp "$f" screenshots/ && echo "$(basename "$f") -> screenshots/"
done
exit 0
