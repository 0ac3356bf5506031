#!/usr/bin/env python3
"""Compares kernelscope's own timings with Nsight Compute's kernel durations.

  ncu-compare.py bench NCU_CSV BENCH_STDOUT VARIANT STEPS
      BENCH_STDOUT: `kernelscope bench laplace3d --grid N --kernel VARIANT --block B`
      run under `ncu --clock-control none --metrics gpu__time_duration.sum -k regex:jacobi --csv`.
  ncu-compare.py live NCU_CSV TIMINGS_CSV ITERS_PER_FRAME FRAMES
      TIMINGS_CSV: the live view's per-frame stage CSV (--save-every), jacobi_ms column,
      from a run without ncu (under ncu the frame's events would include its replays).
      NCU_CSV: FRAMES frames of ITERS_PER_FRAME iterations; every jacobi launch of the
      run is summed, so a temporally blocked variant's launches of several steps and its
      closing single step count as they do in the overlay's Jacobi stage.
Prints both figures and their difference in percent (positive: ours is slower).
"""
import csv
import statistics
import sys


def ncu_durations_ms(path):
    out = []
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        if "jacobi" not in row.get("Kernel Name", ""):
            continue
        unit = row.get("Metric Unit", "ns")
        value = float(row["Metric Value"].replace(",", ""))
        scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}.get(unit, 1e-6)
        out.append(value * scale)
    return out


def main():
    mode = sys.argv[1]
    durs = ncu_durations_ms(sys.argv[2])
    if not durs:
        sys.exit("no jacobi kernels in the ncu output")
    if mode == "bench":
        variant, steps = sys.argv[4], int(sys.argv[5])
        ours = None
        with open(sys.argv[3]) as f:
            for line in f:
                parts = line.split()
                if len(parts) > 4 and parts[0] == variant and "x" in parts[1]:
                    ours = float(parts[3])
        # The timed launches are the long ones (the gold check runs on a tiny grid first).
        big = [d for d in durs if d > 0.25 * max(durs)]
        theirs = statistics.median(big) / steps
    else:
        iters, frames = int(sys.argv[4]), int(sys.argv[5])
        with open(sys.argv[3]) as f:
            rows = list(csv.DictReader(f))
        ours = statistics.median(float(r["jacobi_ms"]) for r in rows if r["jacobi_ms"]) / iters
        theirs = sum(durs) / (iters * frames)
    diff = 100.0 * (ours - theirs) / theirs
    print(f"{mode}: kernelscope {ours:.4f} ms/iter, ncu {theirs:.4f} ms/iter, difference {diff:+.1f}%"
          f" ({len(durs)} jacobi launches profiled)")


if __name__ == "__main__":
    main()
