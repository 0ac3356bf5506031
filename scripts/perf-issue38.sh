#!/usr/bin/env bash
# Issue 38's three kernels on one GPU, each against its reference in the same run:
#   matmul     tests/perf_sgemm: every SGEMM tile shape vs cuBLAS (plain FP32), 1024..8192
#   histogram  tests/perf_hist: byte-histogram candidates vs CUB and warp on text, uniform, equal
#   laplace3d  tests/perf_regq: regq candidates over blocks and chunks vs T_peak, 512^3 and 1024^3
# then, where Nsight Compute (ncu) exists, ncu on regq's best candidate and on the library's regq at
# both sizes (DRAM bytes against the model, L2 hit rate, warps active, stall reasons), while the
# run is under KS_NCU_DEADLINE_S seconds (default 200). About 3-4 minutes on an H200. Full
# outputs go to OUT_DIR; a short summary is printed last.
#   scripts/perf-issue38.sh BUILD_DIR OUT_DIR
# BUILD_DIR is a CUDA build (scripts/build.sh) holding tests/perf_sgemm, perf_hist and perf_regq.
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/perf-issue38.sh BUILD_DIR OUT_DIR" >&2
  exit 2
fi
bin=$(cd "$1" && pwd)/tests
out=$2
for p in perf_sgemm perf_hist perf_regq; do
  [ -x "$bin/$p" ] || { echo "perf-issue38: no $bin/$p (build with CUDA first)" >&2; exit 2; }
done
mkdir -p "$out" && out=$(cd "$out" && pwd)
# perf_sgemm loads cuBLAS from the toolkit
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0
step() { # name timeout_s command...: output to OUT_DIR/name.txt, the exit status noted
  local name=$1 limit=$2 rc
  shift 2
  timeout -k 5 "$limit" "$@" >"$out/$name.txt" 2>&1
  rc=$?
  echo "$name: exit $rc ($(date +%T))" | tee -a "$out/run.txt"
  [ "$rc" = 0 ] || status=1
}

# run.txt: the GPU's state before and after, and each step's exit status
gpu_state() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
    --format=csv,noheader 2>&1 | sed "s/^/gpu $1: /" >>"$out/run.txt"
}
: >"$out/run.txt"
gpu_state before
step sgemm 120 "$bin/perf_sgemm"
step hist 60 "$bin/perf_hist"
step regq 120 "$bin/perf_regq"

# Nsight Compute: one launch (the third) of regq's best candidate and of the library's regq, per size.
metrics="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct"
metrics+=",sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed"
metrics+=",regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -n "$ncu_bin" ] && [ -x "$ncu_bin" ]; then
  for size in 1024 512; do
    if [ "$SECONDS" -gt "${KS_NCU_DEADLINE_S:-200}" ]; then # keep the whole run near 4 minutes
      echo "ncu at $size: left out, ${SECONDS}s gone" | tee -a "$out/run.txt"
      continue
    fi
    best=$(awk -v s="$size" '$1 == "BEST" && $2 == s { print $3, $4, $5 }' "$out/regq.txt" | head -n 1)
    [ -n "$best" ] || best="ref 32x8 4"
    read -r name block chunk <<<"$best"
    step "ncu_best_$size" 60 "$ncu_bin" --kernel-name "regex:ks_lrq_kernel" --launch-skip 2 --launch-count 1 \
      --cache-control none --clock-control none --metrics "$metrics" --csv \
      "$bin/perf_regq" --profile "$size" "$name" "$block" "$chunk"
    echo "candidate: $name $block chunk $chunk" >>"$out/ncu_best_$size.txt"
    step "ncu_lib_$size" 60 "$ncu_bin" --kernel-name "regex:jacobi3d_regq_kernel" --launch-skip 2 --launch-count 1 \
      --cache-control none --clock-control none --metrics "$metrics" --csv \
      "$bin/perf_regq" --profile "$size" lib 32x8 4
  done
else
  echo "ncu: not found, Nsight Compute runs left out" | tee -a "$out/run.txt"
fi

gpu_state after
python3 - "$out" <<'PY'
import csv, io, os, re, sys
out = sys.argv[1]
def read(name):
    try:
        return open(os.path.join(out, name), errors="replace").read()
    except OSError:
        return ""
print("\n== summary (full outputs in %s)" % out)
s = read("sgemm.txt")
print("-- matmul (cuBLAS plain FP32 in the same run; target >= 0.92 at 4096 and 8192)")
for line in s.splitlines():
    if line.startswith(("BEST", "cuBLAS", "check", "device")) or "WRONG" in line:
        print(line)
h = read("hist.txt")
print("-- histogram 100 MiB (x_cub = CUB ms / ms; target >= 1.0 on all three)")
rows = False
for line in h.splitlines():
    if line.startswith("variant"):
        rows = True
    if rows or line.startswith(("BEST", "check", "short")) or "WRONG" in line:
        print(line)
    if line.startswith("BEST"):
        rows = False
r = read("regq.txt")
print("-- regq (ratio = T_eff / T_peak; target >= 0.95 at 512^3 and 1024^3)")
for line in r.splitlines():
    if line.startswith(("#", "BEST", "check", "gold")) or "WRONG" in line:
        print(line)
    m = re.match(r"(\d+)\s+ref\s+32x8\s+4\s", line)
    if m:
        print("ref 32x8 chunk 4: " + line)
print("-- ncu (one launch; model bytes = field read once + written once)")
for size in (1024, 512):
    for who in ("best", "lib"):
        text = read("ncu_%s_%d.txt" % (who, size))
        if not text:
            continue
        start = text.find('"ID"')
        vals = {}
        if start >= 0:
            for row in csv.DictReader(io.StringIO(text[start:])):
                try:
                    vals[row["Metric Name"]] = (float(row["Metric Value"].replace(",", "")), row["Metric Unit"])
                except (KeyError, ValueError, AttributeError, TypeError):
                    pass
        if not vals:
            print("%d %s: no metrics (see ncu_%s_%d.txt)" % (size, who, who, size))
            continue
        def get(name, scale=1.0):
            v = vals.get(name)
            if not v:
                return float("nan")
            unit = v[1].lower()
            mult = {"byte": 1, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "nsecond": 1e-9, "usecond": 1e-6,
                    "msecond": 1e-3, "second": 1.0}.get(unit, 1.0)
            return v[0] * mult / scale
        model = 4.0 * size ** 3
        stalls = sorted(((v[0], k) for k, v in vals.items() if "issue_stalled" in k), reverse=True)[:4]
        stall_txt = ", ".join("%s %.2f" % (re.sub(r"smsp__average_warps_issue_stalled_|_per_issue_active\.ratio", "", k), v)
                              for v, k in stalls)
        cand = re.search(r"candidate: (.*)", text)
        print("%d %-4s %s: %.3f ms, DRAM read %.3f x model, write %.3f x, L2 hit %.1f%%, warps active %.1f%%, "
              "DRAM %.1f%% of peak; stalls: %s" % (
                  size, who, cand.group(1) if cand else "regq 32x8", get("gpu__time_duration.sum", 1e-3),
                  get("dram__bytes_read.sum") / model, get("dram__bytes_write.sum") / model,
                  get("lts__t_sector_hit_rate.pct"), get("sm__warps_active.avg.pct_of_peak_sustained_active"),
                  get("dram__throughput.avg.pct_of_peak_sustained_elapsed"), stall_txt))
print(read("run.txt").strip())
PY
exit $status
