#!/usr/bin/env python3
"""The "what the counters show" tables of the scene docs, in Markdown, from a real run.

  counters-tables.py DIR [SCENE ...]

DIR: the folder of `scripts/gpu-check.sh counters DIR`, which holds for each scene
counters_SCENE/bench_SCENE.csv (`kernelscope bench SCENE --counters`: the bench's columns and the
counter columns dram_read_bytes, dram_write_bytes, bytes_vs_model, l2_hit, sectors_per_request,
bank_conflicts, occupancy_achieved, sm_clock_mhz, stall_top), ncu_SCENE/compare.txt
(`ncu-compare.py scene`) when ncu ran, and live_off/bench_live.csv and live_timeline/bench_live.csv
(`kernelscope bench live` without and with --timeline). Prints, for each scene found (or those
named), a table of every measured row: what the row ran (the bench's columns before its time), its
time, and the counters; then the agreement with ncu; then the timeline's cost. Nothing is made up:
a figure the run did not give is "-", a scene without counters says why (the bench's own line).
Exit 2 when DIR holds none of it.
"""
import csv
import os
import re
import sys

COUNTERS = ["dram_read_bytes", "dram_write_bytes", "bytes_vs_model", "l2_hit", "sectors_per_request",
            "bank_conflicts", "occupancy_achieved", "sm_clock_mhz", "stall_top"]
SCENES = ["laplace3d", "laplace2d", "spheres", "matmul", "histogram", "reduce"]
TIME_COLUMNS = ["ms_per_iter", "ms"]  # the bench's time of the row, the first of these it has
HEADINGS = {"dram_read_bytes": "DRAM read MB", "dram_write_bytes": "DRAM written MB",
            "bytes_vs_model": "bytes / model", "l2_hit": "L2 hit %", "sectors_per_request": "sectors / request",
            "bank_conflicts": "bank conflicts", "occupancy_achieved": "achieved occupancy %",
            "sm_clock_mhz": "SM MHz", "stall_top": "top stall"}


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def cell(column, text):
    """A counter's CSV value as the table shows it."""
    if text is None or text == "":
        return "-"
    if column == "stall_top":
        return text.replace("_", " ")
    v = number(text)
    if v is None:
        return text
    if column in ("dram_read_bytes", "dram_write_bytes"):
        return f"{v / 1e6:.1f}"
    if column in ("l2_hit", "occupancy_achieved"):
        return f"{100.0 * v:.1f}"
    if column == "bytes_vs_model":
        return f"{v:.3f}"
    if column == "sectors_per_request":
        return f"{v:.2f}"
    if column == "sm_clock_mhz":
        return f"{v:.0f}"
    if column == "bank_conflicts":
        return f"{v:.0f}" if v < 1e6 else f"{v:.3g}"
    return text


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def why_none(folder, scene):
    """The bench's line saying why there were no counters, or None."""
    path = os.path.join(folder, "bench.txt")
    if not os.path.isfile(path):
        return None
    for line in open(path, errors="replace"):
        if "the counter columns stay empty" in line:
            return line.strip().replace("kernelscope: ", "", 1)
    return None


def scene_table(out_dir, scene, lines):
    folder = os.path.join(out_dir, f"counters_{scene}")
    path = os.path.join(folder, f"bench_{scene}.csv")
    if not os.path.isfile(path):
        return False
    rows = read_csv(path)
    if not rows:
        return False
    columns = list(rows[0].keys())
    missing = [c for c in COUNTERS if c not in columns]
    lines.append(f"### {scene}: what the counters show")
    lines.append("")
    if missing:
        lines.append(f"`{path}` has no counter columns ({', '.join(missing)}): not a `bench --counters` run.")
        lines.append("")
        return True
    time_col = next((c for c in TIME_COLUMNS if c in columns), None)
    first = columns.index(time_col) if time_col else columns.index(COUNTERS[0])
    ids = [c for c in columns[:first] if c != "device"]
    measured = [r for r in rows if any(r.get(c) for c in COUNTERS)]
    device = rows[0].get("device", "")
    if not measured:
        why = why_none(folder, scene)
        lines.append(f"No counters in the run on {device}: {why}" if why else
                     f"No row was measured in the run on {device}.")
        lines.append("")
        return True
    lines.append(f"Measured on {device} with `kernelscope bench {scene} --counters` (`scripts/gpu-check.sh "
                 f"counters`): one launch of each row, after its timing, with warm caches.")
    lines.append("")
    head = ids + ([time_col] if time_col else []) + [HEADINGS[c] for c in COUNTERS]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for r in measured:
        cells = [r.get(c, "") or "-" for c in ids]
        if time_col:
            t = number(r.get(time_col))
            cells.append(f"{t:.4f}" if t is not None else "-")
        cells += [cell(c, r.get(c)) for c in COUNTERS]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    compare = os.path.join(out_dir, f"ncu_{scene}", "compare.txt")
    if os.path.isfile(compare):
        summary = [l.strip() for l in open(compare, errors="replace")
                   if re.match(r"^\d+ of \d+ figures within 5 %", l) or l.startswith("counts outside 5 %")]
        if summary:
            lines.append("Against Nsight Compute on the same launches (`ncu --cache-control none`, "
                         "`scripts/ncu-compare.py scene`): " + "; ".join(summary) + ".")
            lines.append("")
    return True


def live_table(out_dir, lines):
    off_path = os.path.join(out_dir, "live_off", "bench_live.csv")
    on_path = os.path.join(out_dir, "live_timeline", "bench_live.csv")
    if not (os.path.isfile(off_path) and os.path.isfile(on_path)):
        return False
    key = ("scene", "variant", "grid", "block", "path", "mode")
    off = {tuple(r.get(k, "") for k in key): r for r in read_csv(off_path)}
    on_rows = read_csv(on_path)
    lines.append("### The timeline's cost")
    lines.append("")
    device = on_rows[0].get("device", "") if on_rows else ""
    lines.append(f"Measured on {device} with `kernelscope bench live` without and with `--timeline` "
                 f"(`scripts/gpu-check.sh counters`): the solver's time an iteration in the live loop.")
    lines.append("")
    lines.append("| scene | variant | grid | block | path | mode | ms/iter off | ms/iter timeline | cost % |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    n = 0
    for r in on_rows:
        k = tuple(r.get(c, "") for c in key)
        o = off.get(k)
        a = number(o.get("live_ms_per_iter")) if o else None
        b = number(r.get("live_ms_per_iter"))
        if a is None or b is None or a <= 0:
            continue
        lines.append("| " + " | ".join(k) + f" | {a:.4f} | {b:.4f} | {100.0 * (b / a - 1.0):+.1f} |")
        n += 1
    if not n:
        lines.append("| (no row in both runs) | | | | | | | | |")
    lines.append("")
    return True


def main(argv):
    if len(argv) < 1 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    out_dir, wanted = argv[0], argv[1:] or SCENES
    if not os.path.isdir(out_dir):
        print(f"counters-tables: no folder {out_dir}", file=sys.stderr)
        return 2
    lines = []
    found = sum(scene_table(out_dir, s, lines) for s in wanted)
    found += live_table(out_dir, lines)
    if not found:
        print(f"counters-tables: {out_dir} holds no counters_SCENE/bench_SCENE.csv and no bench live runs "
              f"(scripts/gpu-check.sh counters {out_dir} makes them)", file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
