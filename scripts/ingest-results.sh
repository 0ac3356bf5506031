#!/usr/bin/env bash
# Files the results of `device-check.sh bench shots` (results.tar.gz, fetched
# from the device call's $OUT) into the repository: tables and CSVs into
# docs/results/, bench charts and screenshots into screenshots/.
#   scripts/ingest-results.sh PATH/results.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$tarball"
copy() { [ -f "$tmp/$1" ] && cp "$tmp/$1" "$2" && echo "$1 -> $2"; return 0; }
copy bench3d.txt docs/results/bench3d.txt
copy bench2d.txt docs/results/bench2d.txt
copy bench_spheres.txt docs/results/bench_spheres.txt
copy bench_laplace3d.csv docs/results/bench_laplace3d.csv
copy bench_laplace2d.csv docs/results/bench_laplace2d.csv
copy bench_spheres.csv docs/results/bench_spheres.csv
copy bench_laplace3d.png screenshots/bench_laplace3d.png
copy bench_laplace2d.png screenshots/bench_laplace2d.png
copy bench_spheres.png screenshots/bench_spheres.png
for f in "$tmp"/shots/*.png; do [ -f "$f" ] && cp "$f" screenshots/ && echo "shots/$(basename "$f") -> screenshots/"; done
exit 0
