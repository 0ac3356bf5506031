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
  ncu-compare.py reduce NCU_CSV BENCH_TABLE VARIANT|all [N]
      BENCH_TABLE: the table `kernelscope bench reduce` prints (or tests/reduce/perf_reduce's),
      from a run without ncu: a header line naming the columns, at least `op variant n ms`
      (whitespace-separated; a CSV with the same column names also works), then one row per
      variant and N; ms is the bench's median time of one run of the variant. With N, only
      that N's row is read; without, the last row of the variant.
      NCU_CSV: `ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file NCU_CSV
      <the same bench>` (without --clock-control none ncu locks the base clock),
      best with the bench's timing cut to single runs (perf_reduce: KS_PERF_SPAN_MS=0.001
      KS_PERF_REPS=3 KS_PERF_WARMUP=1), and N >= 2^24. Columns used: "Kernel Name",
      "Grid Size", "Metric Name", "Metric Unit", "Metric Value", in launch order.
      One run of a variant is several kernels (REDUCE_STAGES below: e.g. sum_tree's pass over
      the input and its one-block pass over the partials, CUB's init and scan kernels,
      scan_blocks' recursive block scans and add-backs); a run starts again where a variant's
      kernel sequence goes back to an earlier stage. Each run's durations are summed; runs
      under a quarter of the longest (the gold check's small N) are dropped; the median run
      is compared with the bench's ms. VARIANT `all`: every variant found in both.
      Expect scans to read a few to ~10 % slower in the bench than under ncu: back to back,
      each run also pays for writing the previous run's output back from L2, which an
      isolated profiled launch leaves for later (seen on an H100 at 2^24; sums agree within 2 %).
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


# Kernels of one run of each reduce variant, in order: (name substring, grid, repeats).
# grid: "one" for a (1, 1, 1) grid, "many" for any other, None for either. repeats: the
# stage may run several times in a row within one run (scan_blocks' recursion).
REDUCE_STAGES = {
    "sum_atomic": [("ks_rd_sum_atomic_kernel", None, False)],
    "sum_tree": [("ks_rd_sum_tree_kernel", "many", False), ("ks_rd_sum_tree_kernel", "one", False)],
    "sum_shuffle": [("ks_rd_sum_shuffle_kernel", "many", False), ("ks_rd_sum_shuffle_kernel", "one", False)],
    "sum_onepass": [("ks_rd_sum_onepass_kernel", None, False)],
    "sum_cub": [("DeviceReduceKernel", None, False), ("DeviceReduceSingleTileKernel", None, False)],
    "scan_blocks": [("ks_rd_scan_local_kernel", None, True), ("ks_rd_scan_add_kernel", None, True)],
    "scan_shuffle": [("ks_rd_tile_sum_kernel", None, False), ("ks_rd_scan_sums_kernel", None, False),
                     ("ks_rd_scan_tiles_kernel", None, False)],
    "scan_lookback": [("ks_rd_scan_lookback_kernel", None, False)],
    "scan_cub": [("DeviceScanInitKernel", None, False), ("DeviceScanKernel", None, False)],
}


def ncu_rows(path):
    """(kernel name, grid size, ms) for every gpu__time_duration.sum row, in launch order."""
    out = []
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        unit = row.get("Metric Unit", "ns")
        value = float(row["Metric Value"].replace(",", ""))
        scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}.get(unit, 1e-6)
        out.append((row.get("Kernel Name", ""), row.get("Grid Size", "").replace(" ", ""), value * scale))
    return out


def reduce_stage(variant, name, grid):
    for k, (sub, want_grid, repeats) in enumerate(REDUCE_STAGES[variant]):
        if sub not in name:
            continue
        one = grid == "(1,1,1)"
        if want_grid == "one" and not one or want_grid == "many" and one:
            continue
        return k, repeats
    return None, False


def reduce_runs(rows, variant):
    """The summed duration (ms) and kernel count of each run of variant."""
    runs, last = [], None
    for name, grid, ms in rows:
        stage, repeats = reduce_stage(variant, name, grid)
        if stage is None:
            continue
        if last is None or stage < last or (stage == last and not repeats):
            runs.append([0.0, 0])
        runs[-1][0] += ms
        runs[-1][1] += 1
        last = stage
    return runs


def bench_table(path, n=None):
    """{variant: ms} from the bench's printed table (or CSV) with columns op variant n ms."""
    ours, cols = {}, None
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in (line.split(",") if "," in line else line.split())]
            if "variant" in parts and "ms" in parts:
                cols = {c: k for k, c in enumerate(parts)}
                continue
            if not cols or len(parts) < len(cols):
                continue
            variant = parts[cols["variant"]]
            if variant not in REDUCE_STAGES:
                continue
            if n is not None and "n" in cols and parts[cols["n"]] != str(n):
                continue
            try:
                ours[variant] = float(parts[cols["ms"]])
            except ValueError:
                continue
    return ours


def reduce_main(argv):
    rows = ncu_rows(argv[2])
    ours = bench_table(argv[3], int(argv[5]) if len(argv) > 5 else None)
    wanted = sorted(ours, key=list(REDUCE_STAGES).index) if argv[4] == "all" else [argv[4]]
    if not wanted:
        sys.exit("no reduce variants in the bench table")
    for variant in wanted:
        if variant not in REDUCE_STAGES:
            sys.exit(f"unknown reduce variant {variant!r} (one of: {', '.join(REDUCE_STAGES)}, all)")
        if variant not in ours:
            sys.exit(f"no row for {variant} in {argv[3]}")
        runs = reduce_runs(rows, variant)
        if not runs:
            print(f"reduce {variant}: no kernels of it in the ncu output")
            continue
        longest = max(r[0] for r in runs)
        big = [r for r in runs if r[0] >= 0.25 * longest]
        theirs = statistics.median(r[0] for r in big)
        kernels = statistics.median(r[1] for r in big)
        diff = 100.0 * (ours[variant] - theirs) / theirs
        print(f"reduce {variant}: kernelscope {ours[variant]:.4f} ms/run, ncu {theirs:.4f} ms/run "
              f"(median of {len(big)} runs, {kernels:g} kernels each), difference {diff:+.1f}%")


def main():
    mode = sys.argv[1]
    if mode == "reduce":
        reduce_main(sys.argv)
        return
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
