#!/usr/bin/env python3
"""Prints the benchmark tables of docs/benchmarks.md as Markdown, from the CSVs that
`kernelscope bench` wrote (scripts/gpu-check.sh bench puts them under OUT/tables/):

  matmul     regtile against cuBLAS (FP32) at each size of bench_matmul.csv
  laplace3d  regq's fastest block against T_peak at each grid of bench_laplace3d.csv
  histogram  warp against CUB on each input of bench_histogram.csv

  scripts/bench-tables.py DIR [DIR ...]

Each DIR is searched (recursively) for those CSVs; every figure comes from them, with
the row's cache policy, repetitions and the median's standard error beside it. A T_eff
above T_peak from a working set that fits in the L2 says so ("in L2"). Exit 2 when no
CSV is found or a CSV lacks a column it needs.
"""
import csv
import os
import sys

TARGETS = {"matmul": 0.92, "laplace3d": 0.95, "histogram": 1.0}  # issue 38's targets


def fail(msg):
    print("bench-tables: " + msg, file=sys.stderr)
    sys.exit(2)


def rows_of(paths, name):
    out = []
    for path in paths:
        with open(path, newline="") as f:
            rd = csv.DictReader(f)
            need = {"cache", "reps", "se_pct", "in_l2"}
            missing = need - set(rd.fieldnames or [])
            if missing:
                fail("%s lacks the column(s) %s (a bench from before --cache?)" % (path, ", ".join(sorted(missing))))
            for r in rd:
                r["_file"] = path
                out.append(r)
    return out


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def timing(r):
    se = num(r.get("se_pct"))
    return "%s, %s reps, SE %s" % (r["cache"], r["reps"], "%.2f %%" % se if se is not None else "n/a")


def met(value, target):
    if value is None:
        return "n/a"
    return "yes" if value >= target else "no"


def devices(rows):
    return ", ".join(sorted({r["device"] for r in rows}))


def matmul_table(rows):
    print("### matmul: regtile against cuBLAS (FP32)\n")
    print("Device: %s. Target: regtile >= %.2f of cuBLAS.\n" % (devices(rows), TARGETS["matmul"]))
    print("| M x N x K | cuBLAS ms | cuBLAS TFLOP/s | regtile ms | regtile TFLOP/s | shape | of cuBLAS | met | "
          "timing (cuBLAS / regtile) |")
    print("|---|---|---|---|---|---|---|---|---|")
    keyed = {}
    for r in rows:
        keyed.setdefault((r["_file"], r["m"], r["n"], r["k"]), {})[r["variant"]] = r
    for (_, m, n, k), by in sorted(keyed.items(), key=lambda kv: (int(kv[0][1]), kv[0][0])):
        cb, rt = by.get("cublas"), by.get("regtile")
        if not cb or not rt:
            continue
        cms, rms = num(cb["ms"]), num(rt["ms"])
        ratio = cms / rms if cms and rms else None
        print("| %sx%sx%s | %.4f | %.1f | %.4f | %.1f | %s | %s | %s | %s / %s |" % (
            m, n, k, cms, num(cb["gflops"]) / 1e3, rms, num(rt["gflops"]) / 1e3, rt.get("config") or "-",
            "%.3f" % ratio if ratio else "n/a", met(ratio, TARGETS["matmul"]), timing(cb), timing(rt)))
    print()


def laplace_table(rows):
    print("### laplace3d: regq against T_peak\n")
    print("Device: %s. Target: T_eff / T_peak >= %.2f. The block: the fastest of the bench's sweep on this GPU.\n"
          % (devices(rows), TARGETS["laplace3d"]))
    print("| grid | block | ms / iter | T_eff GB/s | T_peak GB/s | T_eff / T_peak | met | timing |")
    print("|---|---|---|---|---|---|---|---|")
    best = {}
    for r in rows:
        if r["variant"] != "regq":
            continue
        key = (r["_file"], r["grid"])
        if key not in best or num(r["ms_per_iter"]) < num(best[key]["ms_per_iter"]):
            best[key] = r
    for (_, grid), r in sorted(best.items(), key=lambda kv: (int(kv[0][1].split("x")[0]), kv[0][0])):
        ratio = num(r["ratio"])
        note = " (in L2: the cache's rate)" if r["in_l2"] == "1" and ratio and ratio > 1 else ""
        print("| %s | %s | %.4f | %.1f | %.1f | %s%s | %s | %s |" % (
            grid, r["block"], num(r["ms_per_iter"]), num(r["t_eff_gbs"]), num(r["t_peak_gbs"]),
            "%.3f" % ratio if ratio is not None else "n/a", note,
            "n/a (in L2)" if note else met(ratio, TARGETS["laplace3d"]), timing(r)))
    print()


def histogram_table(rows):
    print("### histogram: warp against CUB (256 byte bins)\n")
    print("Device: %s. Target: CUB ms / warp ms >= %.2f on every input; the read floor is T_peak's time for the "
          "bytes.\n" % (devices(rows), TARGETS["histogram"]))
    print("| input | bytes | CUB ms | warp ms | read floor ms | CUB / warp | met | warp's kernel | "
          "timing (CUB / warp) |")
    print("|---|---|---|---|---|---|---|---|---|")
    keyed = {}
    for r in rows:
        if r.get("mode", "bytes") != "bytes":
            continue
        keyed.setdefault((r["_file"], r["input"], r["bytes"]), {})[r["variant"]] = r
    for (_, inp, nbytes), by in sorted(keyed.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        cub, warp = by.get("cub"), by.get("warp")
        if not cub or not warp:
            continue
        cms, wms, peak = num(cub["ms"]), num(warp["ms"]), num(warp["t_peak_gbs"])
        ratio = cms / wms if cms and wms else None
        floor = "%.4f" % (float(nbytes) / (peak * 1e6)) if peak else "n/a"
        print("| %s | %s | %.4f | %.4f | %s | %s | %s | %s | %s / %s |" % (
            inp, nbytes, cms, wms, floor, "%.3f" % ratio if ratio else "n/a", met(ratio, TARGETS["histogram"]),
            warp.get("kernel") or "-", timing(cub), timing(warp)))
    print()


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    found = {"matmul": [], "laplace3d": [], "histogram": []}
    for top in argv[1:]:
        if not os.path.isdir(top):
            fail("%s is not a folder" % top)
        for dirpath, _, files in sorted(os.walk(top)):
            for scene in found:
                if "bench_%s.csv" % scene in files:
                    found[scene].append(os.path.join(dirpath, "bench_%s.csv" % scene))
    if not any(found.values()):
        fail("no bench_matmul.csv, bench_laplace3d.csv or bench_histogram.csv under %s" % " ".join(argv[1:]))
    print("<!-- made by scripts/bench-tables.py from: %s -->\n" % ", ".join(p for v in found.values() for p in v))
    if found["matmul"]:
        matmul_table(rows_of(found["matmul"], "matmul"))
    if found["laplace3d"]:
        laplace_table(rows_of(found["laplace3d"], "laplace3d"))
    if found["histogram"]:
        histogram_table(rows_of(found["histogram"], "histogram"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
