#!/usr/bin/env python3
"""Time per Jacobi iteration on N GPUs with the grid cut into slabs (docs/scaling.md).

One GPU: the kernel moves 8 bytes a point (one read, one write) at `ratio` x T_peak (the device's
copy bandwidth, measured in the same run): t1 = 8 P / (ratio T_peak).

N GPUs, slabs along the slowest axis: each GPU updates P/N points. A GPU first updates its edge
planes (the planes its neighbours need, depth of them), then exchanges them while it updates the
rest. With depth-deep halos (temporal blocking: depth iterations a launch) one exchange moves depth
planes each way and serves depth iterations. Per iteration:

    t_N = t_edge + max(t_inner, t_halo) + t_launch / depth
    t_edge  = (edge points) / (points a second)            the part the exchange must wait for
    t_inner = (the rest of the slab) / (points a second)
    t_halo  = (latency + neighbours * depth * plane_bytes / link_bw) / depth
    t_launch: the edge planes' own launch (a few microseconds)
    speed-up = t1 / t_N, efficiency = speed-up / N (strong scaling); weak scaling keeps P/N fixed
    and compares with one GPU running one share.

Usage:
  scripts/scaling-model.py                          predictions for the default grids (docs/scaling.md)
  scripts/scaling-model.py --grid 1024x1024x1024 --gpus 1,2,4,8,64 --tpeak 4200 --ratio 1.0 \\
      --link-gbs 400 --latency-us 15 --depth 1
  scripts/scaling-model.py --check                  the model's own sanity checks (CI)
  scripts/scaling-model.py --measured CSV [--tolerance 0.10]
      the model against a scaling bench's CSV (kernelscope bench SCENE --gpus 1,2 [--weak]): each
      multi-GPU row predicted from the same run's 1-GPU row (the rate) and its own exchange time
      (halo_ms: the link's bytes and latency as measured there); exit 1 when an error exceeds the
      tolerance
"""
import argparse
import sys

LINKS = {  # per direction between two neighbours; latency: one exchange, NCCL send/recv in a group
    "nvlink": (400.0, 15.0),       # H200 pair, NV18: ~400 GB/s measured peer copy
    "infiniband": (25.0, 20.0),    # one 200 Gb/s HDR port per GPU, GPUDirect RDMA
}

# The default grids and the single-GPU ratios measured on an H200 (docs/laplace-perf.md, bench):
# T_peak ~4.2 TB/s; regq and vec2d at the copy bandwidth, tblock (4 iterations a launch) above it.
DEFAULTS = [
    ("regq", (1024, 1024, 1024), 1.00, 1),
    ("tblock", (1024, 1024, 1024), 2.38, 4),
    ("vec2d", (16384, 16384, 1), 1.00, 1),
]


def model(grid, gpus, tpeak_gbs, ratio, link_gbs, latency_us, depth, weak=False, launch_us=4.0):
    """(ms per iteration, speed-up, efficiency) on `gpus` GPUs. Weak: grid is each GPU's share, the
    speed-up is against one GPU doing one share."""
    nx, ny, nz = grid
    slow = nz if nz > 1 else ny
    plane = nx * (ny if nz > 1 else 1)           # points in one plane of the slow axis
    rate = ratio * tpeak_gbs * 1e9 / 8.0         # points a second
    t_share = plane * slow / rate                # one GPU, one grid
    points = plane * slow * (gpus if weak else 1)  # weak: each GPU keeps a whole share
    t1 = points / rate
    if gpus == 1:
        return t1 * 1e3, 1.0, 1.0
    local = points / gpus
    neighbours = 2 if gpus > 2 else 1            # the slabs at the ends have one
    edge = min(local, neighbours * depth * plane)
    t_edge = edge / rate
    t_inner = (local - edge) / rate
    plane_bytes = plane * 4.0
    t_halo = (latency_us * 1e-6 + neighbours * depth * plane_bytes / (link_gbs * 1e9)) / depth
    # the edge planes are a launch of their own: its overhead comes once an exchange
    t = t_edge + max(t_inner, t_halo) + launch_us * 1e-6 / depth
    if weak:
        eff = t_share / t
        return t * 1e3, eff * gpus, eff
    speedup = t1 / t
    return t * 1e3, speedup, speedup / gpus


def table(rows, gpus_list, tpeak, links, weak, launch_us=4.0):
    out = []
    for name, grid, ratio, depth in rows:
        for link in links:
            bw, lat = LINKS[link] if isinstance(link, str) else link
            label = link if isinstance(link, str) else "%g GB/s, %g us" % link
            for n in gpus_list:
                ms, s, e = model(grid, n, tpeak, ratio, bw, lat, depth, weak, launch_us)
                out.append((name, "x".join(str(g) for g in grid if g > 1), label, n, ms, s, e))
    return out


def check():
    """The model against itself: 1 GPU is 1.0; more GPUs never slower per point than the exchange
    allows; a faster link or deeper halo never hurts a latency-bound case; weak scaling stays
    near 1 on NVLink for the default grids."""
    g3 = (1024, 1024, 1024)
    assert model(g3, 1, 4200, 1.0, 400, 15, 1) == (model(g3, 1, 4200, 1.0, 400, 15, 1)[0], 1.0, 1.0)
    for n in (2, 4, 8, 64):
        ms, s, e = model(g3, n, 4200, 1.0, 400, 15, 1)
        assert 0 < e <= 1.0 and s <= n, (n, s, e)
        assert model(g3, n, 4200, 1.0, 800, 15, 1)[2] >= e       # a faster link
        assert model(g3, n, 4200, 1.0, 25, 20, 1)[2] <= e        # InfiniBand-class
    g2 = (16384, 16384, 1)  # 64 KiB planes: latency-bound at many GPUs; deeper halos help
    assert model(g2, 64, 4200, 1.0, 25, 20, 4)[2] >= model(g2, 64, 4200, 1.0, 25, 20, 1)[2]
    for n in (2, 8):
        assert 0.97 < model(g3, n, 4200, 1.0, 400, 15, 1, weak=True)[2] <= 1.0
    print("scaling-model: checks passed")


DEPTH = {"tblock": 4}  # halo depth = iterations a launch; every other variant exchanges each iteration


def measured(path, tolerance, launch_us=4.0):
    """Predicts every multi-GPU row of a scaling CSV from its run's 1-GPU row and exchange time."""
    import csv
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("device") != "device"]  # concatenated files: headers
    if not rows:
        sys.exit("scaling-model: %s has no rows" % path)
    worst, out = 0.0, []
    singles = [r for r in rows if r["gpus"] == "1"]
    for r in rows:
        n = int(r["gpus"])
        if n == 1:
            continue
        grid = [int(x) for x in r["grid"].split("x")]
        slow = grid[2] if grid[2] > 1 else grid[1]
        plane = grid[0] * (grid[1] if grid[2] > 1 else 1)
        # its 1-GPU row: the same variant, the same grid (strong) or one share of it (weak)
        one = None
        for s1 in singles:
            g1 = [int(x) for x in s1["grid"].split("x")]
            if s1["variant"] != r["variant"] or s1["device"] != r["device"]:
                continue
            s1slow = g1[2] if g1[2] > 1 else g1[1]
            if g1 == grid or (g1[:2] == grid[:2] and (s1slow - 2) * n + 2 == slow):
                one = s1
        if one is None:
            continue
        g1 = [int(x) for x in one["grid"].split("x")]
        points1 = g1[0] * g1[1] * g1[2]
        rate = points1 / (float(one["ms_per_iter"]) * 1e-3)       # points a second on one GPU
        depth = DEPTH.get(r["variant"], 1)
        local = plane * slow / n
        neighbours = 2 if n > 2 else 1
        edge = min(local, neighbours * depth * plane)
        t_halo = float(r["halo_ms"]) * 1e-3 / depth
        t = edge / rate + max((local - edge) / rate, t_halo) + launch_us * 1e-6 / depth
        got = float(r["ms_per_iter"]) * 1e-3
        err = (t - got) / got
        worst = max(worst, abs(err))
        out.append((r["variant"], r["grid"], n, r["ranks"], got * 1e3, t * 1e3, err))
    print("%-7s %-16s %4s %5s %12s %12s %7s" % ("kernel", "grid", "gpus", "ranks", "measured ms", "model ms", "error"))
    for v, g, n, k, got, t, err in out:
        print("%-7s %-16s %4d %5s %12.4f %12.4f %+6.1f%%" % (v, g, n, k, got, t, 100.0 * err))
    print("scaling-model: largest error %.1f%% over %d rows (tolerance %.0f%%)" % (100 * worst, len(out),
                                                                                   100 * tolerance))
    return 0 if out and worst <= tolerance else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", help="NXxNY[xNZ] (default: the default grids, see the table)")
    ap.add_argument("--gpus", default="1,2,4,8,64")
    ap.add_argument("--tpeak", type=float, default=4200.0, help="copy bandwidth, GB/s (default 4200, H200)")
    ap.add_argument("--ratio", type=float, default=1.0, help="the kernel's T_eff / T_peak on one GPU")
    ap.add_argument("--depth", type=int, default=1, help="halo depth = iterations between exchanges")
    ap.add_argument("--link-gbs", type=float, help="link bandwidth per direction (default: nvlink and infiniband)")
    ap.add_argument("--latency-us", type=float, default=15.0)
    ap.add_argument("--launch-us", type=float, default=4.0, help="the edge planes' own launch, per exchange")
    ap.add_argument("--weak", action="store_true", help="weak scaling: the grid is per GPU")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--measured", help="a scaling bench CSV to hold the model against")
    ap.add_argument("--tolerance", type=float, default=0.10)
    a = ap.parse_args()
    if a.measured:
        return measured(a.measured, a.tolerance, a.launch_us)
    if a.check:
        check()
        return 0
    gpus = [int(x) for x in a.gpus.split(",")]
    if any(n < 1 for n in gpus) or a.depth < 1 or a.tpeak <= 0 or a.ratio <= 0:
        sys.exit("scaling-model: --gpus, --depth, --tpeak and --ratio must be positive")
    if a.grid:
        parts = [int(x) for x in a.grid.lower().split("x")]
        if len(parts) not in (2, 3) or min(parts) < 3:
            sys.exit("scaling-model: --grid NXxNY[xNZ], each at least 3")
        grid = tuple(parts + [1] * (3 - len(parts)))
        rows = [("kernel", grid, a.ratio, a.depth)]
    else:
        rows = DEFAULTS
    links = [(a.link_gbs, a.latency_us)] if a.link_gbs else ["nvlink", "infiniband"]
    print("%-7s %-16s %-20s %5s %10s %8s %6s" % ("kernel", "grid", "link", "gpus", "ms/iter", "speedup", "eff"))
    for name, grid, link, n, ms, s, e in table(rows, gpus, a.tpeak, links, a.weak, a.launch_us):
        print("%-7s %-16s %-20s %5d %10.4f %8.2f %6.3f" % (name, grid, link, n, ms, s, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
