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
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from stderr_lines import StderrLines

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.environ.get("KS_BINARY", "kernelscope"))
ap.add_argument("--scene", default="laplace3d")
ap.add_argument("--grid", default="256")
ap.add_argument("--saves", type=int, default=11)
ap.add_argument("--timeout", type=float, default=60.0)
ap.add_argument("--pause", type=float, default=0.5, help="seconds between a reload and the next save")
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="ks_reload.")
src = os.path.join(work, "mine.cu")
subprocess.run([args.bin, "new-kernel", args.scene, "-o", src], check=True, stdout=subprocess.DEVNULL)
base = open(src).read()
proc = subprocess.Popen([args.bin, args.scene, "--headless", "--grid", args.grid, "--frames", "100000000",
                         "--kernel-file", src], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
def dump_state():
    """Where the run and its checker process wait (Linux /proc), for a line that never came."""
    for pid in [proc.pid] + [int(c) for c in open("/proc/%d/task/%d/children" % (proc.pid, proc.pid)).read().split()]:
        try:
            print("process %d: %s" % (pid, open("/proc/%d/cmdline" % pid).read().replace("\0", " ")))
            for t in sorted(os.listdir("/proc/%d/task" % pid)):
                base = "/proc/%d/task/%s/" % (pid, t)
                stat = open(base + "stat").read().rsplit(")", 1)[1].split()
                print("  thread %s %s wchan=%s syscall=%s cpu=%s ticks" % (t, open(base + "comm").read().strip(),
                      open(base + "wchan").read().strip(), " ".join(open(base + "syscall").read().split()[:5]),
                      int(stat[11]) + int(stat[12])))
        except OSError as e:
            print("  (%s)" % e)


def silence(why):
    """No line came: what the run said last and where it waits, then stop it."""
    print("\n".join(out.lines[-20:]))
    if proc.poll() is None:
        dump_state()
        time.sleep(1)
        dump_state()
        proc.send_signal(signal.SIGINT)  # a live frame loop says so and prints its summary
        try:
            print(proc.communicate(timeout=10)[1].decode(errors="replace"))
        except subprocess.TimeoutExpired:
            print("(no answer to SIGINT in 10 s)")
    proc.kill()
    sys.exit("kernel-reload: %s" % why)


out = StderrLines(proc, args.timeout, silence)
wait_for = out.wait_for


first = wait_for(r"compiled in (\d+) ms, checked in (\d+) ms")
print("first build: compile %s ms, check %s ms (a new process: NVRTC and the checker's first use)" % first.groups())
reload_line = r"runs (\d+) ms after the save \(compile (\d+) ms, check (\d+) ms, swap ([\d.]+) ms\)"
rows = []
for i in range(args.saves + 1):
    tmp = src + ".tmp"
    with open(tmp, "w") as f:  # as an editor saves: a new file renamed over the old
        f.write("// save %d\n%s" % (i + 1, base))
    os.rename(tmp, src)
    m = wait_for(reload_line)
    if i == 0:  # the run may still have been starting (its window, the solver): not counted
        print("first save: running %s ms after it (while the run started)" % m.group(1))
    else:
        rows.append(tuple(float(x) for x in m.groups()))
    time.sleep(args.pause)  # a user saves now and then: frames without a build in between
proc.send_signal(signal.SIGINT)
try:
    _, rest = proc.communicate(timeout=args.timeout)
except subprocess.TimeoutExpired:
    proc.kill()
    _, rest = proc.communicate()
out.finish(rest.decode(errors="replace"))
lines = out.lines
names = ("save to running", "NVRTC compile", "check (child)", "swap")
print("%d saves of a %d-line %s kernel, grid %s:" % (len(rows), base.count("\n"), args.scene, args.grid))
for k, name in enumerate(names):
    v = [r[k] for r in rows]
    print("  %-16s median %8.1f ms   min %8.1f   max %8.1f" % (name, statistics.median(v), min(v), max(v)))
for line in lines:
    if "frame interval while" in line or "iterations" in line and "median ms" in line:
        print(line)
if proc.returncode not in (0, 130):  # 130: stopped by SIGINT, as asked
    print("\n".join(lines[-8:]))
    sys.exit("kernel-reload: the run ended with status %d after SIGINT" % proc.returncode)
