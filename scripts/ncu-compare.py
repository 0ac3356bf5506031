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
  ncu-compare.py counters OURS [OURS ...] NCU
      The hardware counters (counters/) against Nsight Compute on the same kernels, metric by
      metric. OURS: `counters_probe --csv FILE`'s CSV (launch,kernel,grid,block,key,metric,value),
      or what counters_probe or test_counters_gpu print. NCU: `ncu --cache-control none
      --clock-control none --metrics <the probe's list> [--csv --print-units base] counters_probe
      --kernels-only --size N`, its CSV or its printed report. Kernels pair in launch order by
      name (and grid where both give it). Prints a table: kernel, metric, ours, ncu, difference
      in percent, and whether it is within 5 % (or within the rounding of ncu's printed value).
      Exit 1 when a count (a .sum other than the duration) is outside: counts are the same in
      every run, while durations, throughputs, hit rates, clocks and stall cycles vary from run
      to run and are reported only.
  ncu-compare.py counters --run PROBE [--size N] [--out DIR] [--ncu NCU]
      Runs both: PROBE --quiet --size N --csv DIR/counters_ours.csv (stdout in
      DIR/counters_probe.txt), then ncu on PROBE --kernels-only --size N with the metrics the
      probe measured (DIR/counters_ncu.csv), then the table (also DIR/counters_compare.txt).
  ncu-compare.py counters [--flushed NCU_ALL] OURS [OURS ...] NCU
      As above; NCU_ALL: ncu's output of the same kernels with --cache-control all (its default,
      caches flushed before each pass), shown beside as information (the verdict stays against NCU).
  ncu-compare.py scene --kernelscope BIN [--out DIR] [--ncu NCU] [--ours CSV] SCENE [BENCH_ARGS ...]
      A scene's kernels: `BIN bench SCENE --counters --out DIR/ncu_SCENE/ours BENCH_ARGS`
      (counters_SCENE.csv: every row's launch measured once after its timing; --ours reuses one
      made with the same BENCH_ARGS), then twice `ncu --profile-from-start off --cache-control
      none|all --clock-control none --csv --print-units base --metrics <what ours measured> BIN
      bench SCENE --counters-ncu BENCH_ARGS` (the same launches at the same places in the run,
      nothing else profiled), then the table: per bench row, kernel, metric, ours, ncu with
      --cache-control none (as ours ran: warm caches) and the difference, ncu with
      --cache-control all and the difference, within 5 % (DIR/ncu_SCENE/compare.txt). Exit 1
      when a count is outside 5 % of ncu's --cache-control none.
Prints both figures and their difference in percent (positive: ours is slower).
"""
import argparse
import csv
import math
import os
import re
import statistics
import subprocess
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


# ---- counters ----

def short_name(name):
    """A kernel's name without its return type and parameters: "void k<1>(int)" -> "k<1>"."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    depth = 0
    for k, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return name[:k].strip()
    return name


# Time in ns, frequency in Hz, bytes, the rest as printed. ncu scales with SI prefixes.
TIME_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def unit_scale(unit):
    u = unit.strip()
    if u in TIME_NS:
        return TIME_NS[u]
    if u.lower() == "hz":
        return 1.0
    if len(u) > 1 and u[0] in PREFIX and (u[1:].islower() or u[1:].lower() == "hz"):
        return PREFIX[u[0]]
    return 1.0


def parse_number(text):
    """(value, decimals) of ncu's printed number ("33,554,432", "1.07", "n/a": None)."""
    t = text.strip().replace(",", "")
    try:
        value = float(t)
    except ValueError:
        return None, 0
    decimals = len(t.split(".")[1]) if "." in t and "e" not in t.lower() else 0
    return value, decimals


class Launch:
    def __init__(self, name, grid=None, block=None):
        self.name = short_name(name)
        self.full = name.strip()
        self.grid = grid
        self.block = block
        self.row = ""  # the bench row it was measured for (counters_<scene>.csv), "" none
        self.values = {}  # metric -> (value, rounding)


def ncu_launches(path):
    """Nsight Compute's kernels in launch order, from its --csv output or its printed report."""
    with open(path, newline="", errors="replace") as f:
        text = f.read()
    quoted = [l for l in text.splitlines() if l.startswith('"')]
    launches = []
    if quoted:
        by_id = {}
        for row in csv.DictReader(quoted):
            if "Metric Name" not in row:
                continue
            key = row.get("ID", str(len(by_id)))
            if key not in by_id:
                grid = re.findall(r"\d+", row.get("Grid Size", ""))
                block = re.findall(r"\d+", row.get("Block Size", ""))
                by_id[key] = Launch(row.get("Kernel Name", ""), int(grid[0]) if grid else None,
                                    int(block[0]) if block else None)
                launches.append(by_id[key])
            value, decimals = parse_number(row.get("Metric Value", ""))
            if value is None:
                continue
            scale = unit_scale(row.get("Metric Unit", ""))
            by_id[key].values[row["Metric Name"]] = (value * scale, 0.5 * 10 ** -decimals * scale)
        return launches
    head = re.compile(r"^  (?P<name>\S.*?) \((?P<g>\d+), \d+, \d+\)x\((?P<b>\d+), \d+, \d+\), Context")
    metric = re.compile(r"^\s+(?P<m>[a-z0-9_]+__[\w.]+)\s+(?:(?P<u>[A-Za-z%/_]+)\s+)?(?P<v>[\d,.]+|n/a)\s*$")
    for line in text.splitlines():
        m = head.match(line)
        if m:
            launches.append(Launch(m.group("name"), int(m.group("g")), int(m.group("b"))))
            continue
        m = metric.match(line)
        if m and launches:
            value, decimals = parse_number(m.group("v"))
            if value is None:
                continue
            scale = unit_scale(m.group("u") or "")
            launches[-1].values[m.group("m")] = (value * scale, 0.5 * 10 ** -decimals * scale)
    return launches


def our_launches(path):
    """The counters' measurements in launch order: the probe's --csv, or the probe's or the gpu test's print."""
    with open(path, newline="", errors="replace") as f:
        text = f.read()
    lines = text.splitlines()
    if lines and lines[0].startswith("launch,kernel,"):
        launches, by_launch = [], {}
        for row in csv.DictReader(lines):
            key = row["launch"]
            if key not in by_launch:
                grid, block = int(row["grid"] or 0), int(row["block"] or 0)
                by_launch[key] = Launch(row["kernel"], grid or None, block or None)
                by_launch[key].row = row.get("row") or ""
                launches.append(by_launch[key])
            by_launch[key].values[row["metric"]] = (float(row["value"]), 0.0)
        return launches
    accepted = {}  # key -> metric, from the probe's create section
    for line in lines:
        m = re.match(r"^  (\w+)\s+([a-z0-9_]+__\S+)\s+accepted$", line)
        if m:
            accepted[m.group(1)] = m.group(2)
    launches = []
    head = re.compile(r"^  (?:-- )?kernel \d+: (?P<name>.*?)(?: \(grid (?P<g>\d+), block (?P<b>\d+)\))?$")
    with_name = re.compile(r"^\s+(?P<k>\w+)\s+(?P<m>[a-z0-9_]+__\S+)\s+(?P<v>-?[\d.]+(?:e[+-]?\d+)?|nan|inf)$")
    key_only = re.compile(r"^    (?P<k>\w+)\s+(?P<v>-?[\d.]+(?:e[+-]?\d+)?|nan|inf)$")
    for line in lines:
        m = head.match(line)
        if m:
            launches.append(Launch(m.group("name"), int(m.group("g")) if m.group("g") else None,
                                   int(m.group("b")) if m.group("b") else None))
            continue
        if not launches:
            continue
        m = with_name.match(line)
        if m:
            launches[-1].values[m.group("m")] = (float(m.group("v")), 0.0)
            continue
        m = key_only.match(line)
        if m and m.group("k") in accepted:
            launches[-1].values[accepted[m.group("k")]] = (float(m.group("v")), 0.0)
    return [l for l in launches if l.values]


def cut_name(name):
    """The name as kernelscope's bench writes it: without "void ", up to its first "(" (ks_tl_short_name)."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    name = name.split("(", 1)[0].strip()
    # a bool template argument: CUPTI's demangler writes true/false, ncu's 1/0
    return re.sub(r"(?<=[<,\s])(true|false)(?=\s*[,>])", lambda m: "1" if m.group(1) == "true" else "0", name)


def is_count(metric):
    return metric.endswith(".sum") and not metric.startswith("gpu__time_duration")


def base_name(name):
    """The function's own name, without namespaces and template arguments: CUPTI writes a library's
    kernels with their inline namespaces ("cub::CUB_300001_SM_900::detail::histogram::K<1>"), ncu
    without ("cub::K<1>")."""
    name = cut_name(name)
    depth, plain = 0, ""
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            plain += ch
    return plain.rsplit("::", 1)[-1].strip()


def pair(ours, theirs):
    """(ours, ncu) for each ncu launch that has a measurement of ours: same name (and grid when both
    give it), in launch order, each of ours used once; then, for the ncu launches left, the same
    function name without namespaces and template arguments, in launch order."""
    used, found = set(), {}
    for key in (cut_name, base_name):
        for i, t in enumerate(theirs):
            if i in found:
                continue
            for k, o in enumerate(ours):
                if k in used or key(o.full) != key(t.full):
                    continue
                if o.grid and t.grid and o.grid != t.grid:
                    continue
                used.add(k)
                found[i] = (o, t)
                break
    return [found[i] for i in sorted(found)]


def fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 1e-3:
        return f"{v:.4g}"
    return f"{v:.4f}".rstrip("0").rstrip(".")


# Figures the cache policy cannot change: ncu's run with caches flushed and its run without are two
# runs of the same thing there, so their difference is how well the figure repeats.
CACHE_BLIND = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared",)


def not_repeated(ours, ncu, others):
    """ncu's runs of the same thing (others: its other figures for it) more than 5 % apart, ours within
    their span: the spread of the largest difference from ncu's figure, or None."""
    if not others:
        return None
    lo, hi = min([ncu] + others), max([ncu] + others)
    if hi - lo > 0.05 * max(abs(hi), abs(lo)) and 0.95 * lo <= ours <= 1.05 * hi:
        return 100.0 * (hi - lo) / max(abs(hi), abs(lo))
    return None


def counters_table(ours_paths, ncu_path, out=sys.stdout, flushed_path=None, repeat_path=None):
    """ours against ncu run like ours (--cache-control none); flushed_path: ncu with its default
    --cache-control all as well, shown beside it (information: caches flushed before each pass);
    repeat_path: ncu run like ours a second time (how well each figure repeats in ncu itself)."""
    ours = []
    for p in ours_paths:
        ours += our_launches(p)
    theirs = ncu_launches(ncu_path)
    if not ours:
        sys.exit(f"no measurements of ours in {', '.join(ours_paths)}")
    if not theirs:
        sys.exit(f"no kernels in the ncu output {ncu_path}")
    pairs = pair(ours, theirs)
    if not pairs:
        sys.exit("no kernel measured by both")
    flushed = {}  # id(ncu launch) -> the flushed run's launch of the same place
    if flushed_path:
        for t, f in pair(theirs, ncu_launches(flushed_path)):
            flushed[id(t)] = f
    repeated = {}  # id(ncu launch) -> the repeat run's launch of the same place
    if repeat_path:
        for t, r in pair(theirs, ncu_launches(repeat_path)):
            repeated[id(t)] = r
    rows, bad_counts, within, total = [], [], 0, 0
    unrepeatable = 0  # outside 5 %, on a figure ncu's own two runs do not repeat within 5 %
    width = max(len(m) for o, t in pairs for m in o.values if m in t.values)
    labels = [o.name + (f" ({o.grid})" if o.grid else "") for o, _ in pairs]
    kw = max(len("kernel"), max(len(l) for l in labels))
    extra = f" {'ncu flushed':>14} {'diff %':>9}" if flushed_path else ""
    print(f"{'kernel':<{kw}} {'metric':<{width}} {'ours':>14} {'ncu':>14} {'diff %':>9}{extra}  within 5 %", file=out)
    last_row = None
    for (o, t), label in zip(pairs, labels):
        if o.row and o.row != last_row:  # the bench row these launches were measured for
            print(f"-- {o.row}", file=out)
            last_row = o.row
        sizes_differ = False
        for metric in sorted(o.values):
            if metric not in t.values:
                continue
            a = o.values[metric][0]
            b, rounding = t.values[metric]
            diff = 100.0 * (a - b) / abs(b) if b != 0 else (0.0 if a == 0 else math.inf)
            ok = abs(a - b) <= max(0.05 * abs(b), rounding)
            total += 1
            within += ok
            if not ok and is_count(metric):
                bad_counts.append(f"{o.name} {metric}")
            if metric.startswith("dram__bytes") and b > 1e6 and not (0.5 < a / b < 2.0):
                sizes_differ = True
            d = "-" if math.isinf(diff) else f"{diff:+.2f}"
            note = "yes" if ok else "NO"
            if ok and abs(a - b) > 0.05 * abs(b):
                note = "yes (rounding)"
            more = ""
            if flushed_path:
                f = flushed.get(id(t))
                if f and metric in f.values:
                    c = f.values[metric][0]
                    fd = 100.0 * (a - c) / abs(c) if c != 0 else (0.0 if a == 0 else math.inf)
                    more = f" {fmt(c):>14} {'-' if math.isinf(fd) else f'{fd:+.2f}':>9}"
                else:
                    more = f" {'-':>14} {'-':>9}"
            if not ok:  # ncu's other runs of the same thing: the repeat, and the flushed one where caches do not matter
                others = []
                r = repeated.get(id(t))
                if r and metric in r.values:
                    others.append(r.values[metric][0])
                f = flushed.get(id(t)) if metric.startswith(CACHE_BLIND) else None
                if f and metric in f.values:
                    others.append(f.values[metric][0])
                spread = not_repeated(a, b, others)
                if spread is not None:
                    note = f"NO (ncu's own runs differ by {spread:.0f} %)"
                    unrepeatable += 1
            print(f"{label:<{kw}} {metric:<{width}} {fmt(a):>14} {fmt(b):>14} {d:>9}{more}  {note}", file=out)
        if sizes_differ:
            print(f"  {o.name}: DRAM bytes differ by more than 2x: not the same launch sizes; compare "
                  f"counters_probe --csv with ncu on counters_probe --kernels-only at the same --size", file=out)
    unpaired = [t.name for t in theirs if all(t is not tt for _, tt in pairs)]
    print(f"{within} of {total} figures within 5 % of ncu over {len(pairs)} kernels"
          + (f"; ncu's kernels without a measurement of ours: {', '.join(unpaired)}" if unpaired else ""), file=out)
    if flushed_path:
        print("ncu flushed: ncu --cache-control all (its default: caches flushed before each pass), shown only; "
              "the verdict is against --cache-control none, as ours ran", file=out)
    if unrepeatable:
        print(f"{unrepeatable} of the figures outside 5 % are ones ncu's own runs of the same launch (run alike"
              + (", or, for bank conflicts, with caches flushed" if flushed_path else "") + ") give more than 5 % "
              "apart, ours between them: such a figure does not repeat within 5 %, in ncu either", file=out)
    if bad_counts:
        print("counts outside 5 %: " + "; ".join(bad_counts), file=out)
    return 1 if bad_counts else 0


class Tee:
    def __init__(self, *files):
        self.files = files

    def write(self, text):
        for f in self.files:
            f.write(text)


def counters_run(args):
    os.makedirs(args.out, exist_ok=True)
    ours_csv = os.path.join(args.out, "counters_ours.csv")
    ncu_csv = os.path.join(args.out, "counters_ncu.csv")
    with open(os.path.join(args.out, "counters_probe.txt"), "w") as log:
        rc = subprocess.call([args.run, "--quiet", "--size", str(args.size), "--csv", ours_csv], stdout=log,
                             stderr=subprocess.STDOUT)
    if rc != 0 or not os.path.exists(ours_csv):
        sys.exit(f"counters_probe failed (exit {rc}); see {os.path.join(args.out, 'counters_probe.txt')}")
    metrics = sorted({m for l in our_launches(ours_csv) for m in l.values})
    with open(os.path.join(args.out, "counters_ncu_run.txt"), "w") as log:
        rc = subprocess.call([args.ncu, "--cache-control", "none", "--clock-control", "none", "--csv",
                              "--print-units", "base", "--metrics", ",".join(metrics), "--log-file", ncu_csv,
                              args.run, "--kernels-only", "--size", str(args.size)], stdout=log,
                             stderr=subprocess.STDOUT)
    if rc != 0 or not os.path.exists(ncu_csv):
        sys.exit(f"ncu failed (exit {rc}); see {os.path.join(args.out, 'counters_ncu_run.txt')}")
    with open(os.path.join(args.out, "counters_compare.txt"), "w") as f:
        return counters_table([ours_csv], ncu_csv, Tee(sys.stdout, f))


def counters_main(argv):
    ap = argparse.ArgumentParser(prog="ncu-compare.py counters")
    ap.add_argument("--run", metavar="PROBE", help="counters_probe to run, with and under ncu")
    ap.add_argument("--size", type=int, default=1 << 28, help="floats the probe's copy moves (default 2^28)")
    ap.add_argument("--out", default=".", help="folder for the runs' files (with --run)")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--flushed", metavar="NCU_ALL",
                    help="ncu's output of the same kernels with --cache-control all, shown beside (without --run)")
    ap.add_argument("--repeat", metavar="NCU_AGAIN",
                    help="ncu's output of the same kernels run alike a second time: a figure outside 5 %% that ncu "
                         "does not repeat within 5 %% is said to be so (without --run)")
    ap.add_argument("files", nargs="*", help="OURS [OURS ...] NCU (without --run)")
    args = ap.parse_args(argv)
    if args.run:
        if args.files:
            ap.error("--run takes no files")
        return counters_run(args)
    if len(args.files) < 2:
        ap.error("give OURS [OURS ...] NCU, or --run PROBE")
    for p in args.files + [x for x in (args.flushed, args.repeat) if x]:
        if not os.path.isfile(p):
            ap.error(f"no file {p}")
    return counters_table(args.files[:-1], args.files[-1], flushed_path=args.flushed, repeat_path=args.repeat)


def ncu_bench(args, cache, metrics, folder, tag=""):
    """ncu on `kernelscope bench SCENE --counters-ncu`: only the launches --counters measures are profiled
    (between cudaProfilerStart and Stop), at the cache policy given, the clocks as they run."""
    os.makedirs(folder, exist_ok=True)
    name = f"ncu_{cache}{tag}"
    log_csv = os.path.join(folder, f"{name}.csv")
    cmd = [args.ncu, "--profile-from-start", "off", "--cache-control", cache, "--clock-control", "none", "--csv",
           "--print-units", "base", "--metrics", ",".join(metrics), "--log-file", log_csv, args.kernelscope, "bench",
           args.scene, "--counters-ncu", "--out", os.path.join(folder, f"{name}_run")] + args.bench_args
    with open(os.path.join(folder, f"{name}.txt"), "w") as log:
        log.write(" ".join(cmd) + "\n")
        log.flush()
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    if rc != 0 or not os.path.exists(log_csv):
        sys.exit(f"ncu --cache-control {cache} failed (exit {rc}); see {os.path.join(folder, f'{name}.txt')}")
    return log_csv


def scene_main(argv):
    ap = argparse.ArgumentParser(
        prog="ncu-compare.py scene",
        description="kernelscope bench SCENE --counters against ncu --metrics on the same launches: ncu with "
                    "--cache-control none (like ours: warm caches) decides, --cache-control all (ncu's default) "
                    "is shown beside it.")
    ap.add_argument("--kernelscope", required=True, metavar="BIN", help="the kernelscope binary")
    ap.add_argument("--out", default=".", help="folder for the runs' files (DIR/ncu_SCENE/)")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--ours", metavar="CSV",
                    help="counters_SCENE.csv of a bench --counters run with the same arguments (default: run it)")
    ap.add_argument("scene")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER, help="the bench's own arguments (sizes, variants)")
    args = ap.parse_args(argv)
    folder = os.path.join(args.out, f"ncu_{args.scene}")
    os.makedirs(folder, exist_ok=True)
    ours = args.ours
    if not ours:
        run_dir = os.path.join(folder, "ours")
        with open(os.path.join(folder, "ours.txt"), "w") as log:
            rc = subprocess.call([args.kernelscope, "bench", args.scene, "--counters", "--out", run_dir]
                                 + args.bench_args, stdout=log, stderr=subprocess.STDOUT)
        ours = os.path.join(run_dir, f"counters_{args.scene}.csv")
        if rc != 0 or not os.path.exists(ours):
            sys.exit(f"bench {args.scene} --counters failed or measured nothing (exit {rc}); see "
                     f"{os.path.join(folder, 'ours.txt')}")
    elif not os.path.isfile(ours):
        ap.error(f"no file {ours}")
    metrics = sorted({m for l in our_launches(ours) for m in l.values})
    if not metrics:
        sys.exit(f"no measurements in {ours}")
    none_csv = ncu_bench(args, "none", metrics, folder)
    all_csv = ncu_bench(args, "all", metrics, folder)
    again_csv = ncu_bench(args, "none", metrics, folder, "_again")  # how well each figure repeats in ncu
    with open(os.path.join(folder, "compare.txt"), "w") as f:
        print(f"bench {args.scene} {' '.join(args.bench_args)}: ours (--counters) against ncu on the same launches",
              file=Tee(sys.stdout, f))
        return counters_table([ours], none_csv, Tee(sys.stdout, f), flushed_path=all_csv, repeat_path=again_csv)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mode = sys.argv[1]
    if mode == "counters":
        sys.exit(counters_main(sys.argv[2:]))
    if mode == "scene":
        sys.exit(scene_main(sys.argv[2:]))
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
