#!/usr/bin/env python3
"""Save-to-running time of a user's kernel (--kernel-file), on a machine with a CUDA GPU.

Starts a headless live run of SCENE on a starter kernel (kernelscope new-kernel), saves the
file SAVES times (each save waits until the app says the build runs), and reports, from the
app's own lines: NVRTC compile, the check in the checker process, the swap, and save to
running (medians and spread); then the frame interval while a build was on its way against
the rest, which the app prints when it ends.

  scripts/kernel-reload.py [--bin kernelscope] [--scene laplace3d] [--grid 256] [--saves 11]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.environ.get("KS_BINARY", "kernelscope"))
ap.add_argument("--scene", default="laplace3d")
ap.add_argument("--grid", default="256")
ap.add_argument("--saves", type=int, default=11)
ap.add_argument("--timeout", type=float, default=120.0)
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="ks_reload.")
src = os.path.join(work, "mine.cu")
subprocess.run([args.bin, "new-kernel", args.scene, "-o", src], check=True, stdout=subprocess.DEVNULL)
base = open(src).read()
proc = subprocess.Popen([args.bin, args.scene, "--headless", "--grid", args.grid, "--frames", "100000000",
                         "--kernel-file", src], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                        bufsize=1)
lines = []


def wait_for(pattern):
    end = time.time() + args.timeout
    while time.time() < end:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        m = re.search(pattern, line)
        if m:
            return m
    sys.stdout.write("\n".join(lines[-20:]) + "\n")
    proc.kill()
    sys.exit("kernel-reload: no line matching %r" % pattern)


first = wait_for(r"compiled in (\d+) ms, checked in (\d+) ms")
print("first build: compile %s ms, check %s ms (a new process: NVRTC and the checker's first use)" % first.groups())
rows = []
for i in range(args.saves):
    tmp = src + ".tmp"
    with open(tmp, "w") as f:  # as an editor saves: a new file renamed over the old
        f.write("// save %d\n%s" % (i + 1, base))
    os.rename(tmp, src)
    m = wait_for(r"runs (\d+) ms after the save \(compile (\d+) ms, check (\d+) ms, swap ([\d.]+) ms\)")
    rows.append(tuple(float(x) for x in m.groups()))
proc.send_signal(signal.SIGINT)
try:
    out, _ = proc.communicate(timeout=args.timeout)
except subprocess.TimeoutExpired:
    proc.kill()
    out, _ = proc.communicate()
lines += out.splitlines()
names = ("save to running", "NVRTC compile", "check (child)", "swap")
print("%d saves of a %d-line %s kernel, grid %s:" % (len(rows), base.count("\n"), args.scene, args.grid))
for k, name in enumerate(names):
    v = [r[k] for r in rows]
    print("  %-16s median %8.1f ms   min %8.1f   max %8.1f" % (name, statistics.median(v), min(v), max(v)))
for line in lines:
    if "frame interval while" in line or "iterations" in line and "median ms" in line:
        print(line)
sys.exit(0 if proc.returncode == 0 else 1)
