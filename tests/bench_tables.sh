#!/usr/bin/env bash
# scripts/bench-tables.py on CSVs laid out as kernelscope bench writes them: the
# ratios are computed from the rows (none written in the script), the fastest regq
# block is the one shown, a working set in L2 is said so, every row carries its
# cache policy, and a CSV without the timing's columns is exit 2 with one line.
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/a/cold" "$tmp/a/warm" "$tmp/old"
cat >"$tmp/a/cold/bench_matmul.csv" <<'CSV'
device,variant,m,n,k,tile,block_tile,config,ms,gflops,pct_cublas,pct_peak,cc,min_ms,cache,reps,se_pct,in_l2
"GPU X",cublas,4096,4096,4096,0,-,,2.000000,68719.477,100.0,80.0,9.0,1.990000,cold,12,0.300,0
"GPU X",regtile,4096,4096,4096,0,128x256,128x256x16/64x64/8x16,2.500000,54975.581,80.0,64.0,9.0,2.480000,cold,15,0.410,0
CSV
cat >"$tmp/a/warm/bench_laplace3d.csv" <<'CSV'
device,variant,grid,block,ms_per_iter,t_eff_gbs,t_peak_gbs,ratio,registers,occupancy,best,cc,t_peak_spread,cache,reps,se_pct,in_l2
"GPU X",regq,512x512x512,32x8x1,0.300000,3579.14,3700.00,0.9673,32,1.000,1,9.0,,warm,20,0.200,0
"GPU X",regq,512x512x512,64x4x1,0.400000,2684.35,3700.00,0.7255,32,1.000,0,9.0,,warm,11,0.500,0
"GPU X",regq,128x128x128,32x8x1,0.002000,8388.61,3700.00,2.2672,32,1.000,1,9.0,,cold,40,0.900,1
CSV
cat >"$tmp/a/cold/bench_histogram.csv" <<'CSV'
device,variant,input,mode,bytes,bins,ms,min_ms,gbs,t_peak_gbs,pct_tpeak,pct_cub,cc,kernel,cache,reps,se_pct,in_l2
"GPU X",cub,text,bytes,100000000,256,0.050000,0.049000,2000.000,4000.000,50.00,100.0,9.0,,cold,30,0.500,0
"GPU X",warp,text,bytes,100000000,256,0.040000,0.039000,2500.000,4000.000,62.50,125.0,9.0,"sub-histograms (text)",cold,25,0.600,0
"GPU X",cub,equal,bytes,100000000,256,0.030000,0.029000,3333.333,4000.000,83.33,100.0,9.0,,cold,30,0.500,0
"GPU X",warp,equal,bytes,100000000,256,0.060000,0.059000,1666.667,4000.000,41.67,50.0,9.0,"run-length (equal)",cold,25,0.600,0
CSV
printf 'device,variant,m,n,k,tile,ms,gflops\n"GPU X",cublas,64,64,64,0,1.0,1.0\n' >"$tmp/old/bench_matmul.csv"

out=$(python3 "$src/scripts/bench-tables.py" "$tmp/a") || fail "exit $? on good CSVs"
echo "$out"
grep -q '| 4096x4096x4096 | 2.0000 | 68.7 | 2.5000 | 55.0 | 128x256x16/64x64/8x16 | 0.800 | no | cold, 12 reps, SE 0.30 % / cold, 15 reps, SE 0.41 % |' <<<"$out" ||
  fail "matmul row"
grep -q '| 512x512x512 | 32x8x1 | 0.3000 | 3579.1 | 3700.0 | 0.967 | yes | warm, 20 reps, SE 0.20 % |' <<<"$out" ||
  fail "laplace3d: the fastest block's row"
grep -q '64x4x1' <<<"$out" && fail "laplace3d: a slower block shown"
grep -q '| 128x128x128 | 32x8x1 | .* | 2.267 (in L2: the cache.s rate) | n/a (in L2) | cold' <<<"$out" || fail "laplace3d: the in-L2 note"
grep -q '| text | 100000000 | 0.0500 | 0.0400 | 0.0250 | 1.250 | yes | sub-histograms (text) |' <<<"$out" ||
  fail "histogram text row"
grep -q '| equal | 100000000 | 0.0300 | 0.0600 | 0.0250 | 0.500 | no |' <<<"$out" || fail "histogram equal row"

err=$(python3 "$src/scripts/bench-tables.py" "$tmp/old" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] || fail "a CSV without the timing's columns: exit $rc"
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && grep -q 'lacks the column(s) cache, in_l2, reps, se_pct' <<<"$err" ||
  fail "its message: $err"
err=$(python3 "$src/scripts/bench-tables.py" "$tmp/none" 2>&1 >/dev/null)
[ $? = 2 ] && grep -q 'is not a folder' <<<"$err" || fail "a missing folder: $err"
echo "ok"
