#!/usr/bin/env python3
"""Faulting kernels saved into a running live view, on a machine with a CUDA GPU.

Starts a headless live run of laplace3d on a starter kernel (kernelscope new-kernel), then saves
over it, one after the other: a kernel that writes just past the end of v, one that writes far
past it (a terabyte: nothing is mapped there), and one that never ends. For each it waits for the
app's refusal line, prints it, then watches the run's progress lines for --after seconds (the
live view must go on drawing: frames counted a second) and, where another program can be started,
checks that the GPU still runs a second process (a fault can leave a GPU unable to switch between
processes). Last it sends SIGINT and times the exit. Exit status 0 when every fault was refused
with a message naming the user's file, the frames went on, and SIGINT ended the run in --stop-s.

  scripts/kernel-faults-live.py [--bin kernelscope] [--grid 256] [--after 60] [--stop-s 2]
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from stderr_lines import StderrLines

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.environ.get("KS_BINARY", "kernelscope"))
ap.add_argument("--grid", default="256")
ap.add_argument("--after", type=float, default=60.0, help="seconds of frames to watch after each fault")
ap.add_argument("--stop-s", type=float, default=2.0, help="the most seconds SIGINT may take to end the run")
ap.add_argument("--timeout", type=float, default=120.0, help="the most seconds to wait for any one line")
ap.add_argument("--only", default="", help="comma-separated subset of: near,far,endless")
ap.add_argument("--probe", default="", help="a command that must succeed on the GPU after each fault "
                "(default: a 5-frame headless laplace3d run on a 64^3 grid)")
args = ap.parse_args()

STARTER_END = "           (1.0f / 6.0f);\n"  # the starter's last statement: faults go after it


def with_line(base, line):
    """The starter with one line added after its stencil; (text, that line's number)."""
    at = base.index(STARTER_END) + len(STARTER_END)
    return base[:at] + line + base[at:], base[:at].count("\n") + 1


HEAD = "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n{\n"
order = [k for k in ("near", "far", "endless") if not args.only or k in args.only.split(",")]

work = tempfile.mkdtemp(prefix="ks_faults.")
src = os.path.join(work, "mine.cu")
subprocess.run([args.bin, "new-kernel", "laplace3d", "-o", src], check=True, stdout=subprocess.DEVNULL)
base = open(src).read()
FAULTS = {
    # the last interior plane's points also write one plane past the last plane of v
    "near": with_line(base, "    if (k == nz - 2) v[p + 2 * sz] = 0.0f;\n"),
    # a terabyte past v: nothing is mapped there
    "far": (HEAD + "    v[((size_t)1 << 38) + threadIdx.x] = u[0] + nx + ny + nz;\n}\n", 3),
    # a volatile read of u keeps the loop: it never ends
    "endless": (HEAD + "    const volatile float *w = u;\n    while (w[0] > -1.0f) { }\n    v[0] = w[0];\n}\n", None),
}
proc = subprocess.Popen([args.bin, "laplace3d", "--headless", "--progress", "--grid", args.grid,
                         "--frames", "100000000", "--kernel-file", src],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def silence(why):
    print("\n".join(out.lines[-20:]))
    if proc.poll() is None:
        proc.kill()
    sys.exit("kernel-faults-live: %s" % why)


out = StderrLines(proc, args.timeout, silence)
out.wait_for(r"compiled in \d+ ms, checked in \d+ ms")
progress = r"kernelscope: frame (\d+)"
failures = []


def save(text):
    tmp = src + ".tmp"
    with open(tmp, "w") as f:  # as an editor saves: a new file renamed over the old
        f.write(text)
    os.rename(tmp, src)


def probe():
    cmd = args.probe.split() if args.probe else [args.bin, "laplace3d", "--headless", "--frames", "5", "--grid", "64"]
    t = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=args.timeout)
        return r.returncode, time.time() - t, r.stderr.decode(errors="replace").strip().splitlines()[-1:]
    except subprocess.TimeoutExpired:
        return None, time.time() - t, ["did not end in %.0f s" % args.timeout]


for kind in order:
    text, line = FAULTS[kind]
    save(text)
    saved = time.time()
    m = out.wait_for(r"kernelscope: mine\.cu: (.*); the previous code goes on running")
    said = m.group(1)
    print("%s: refused %.1f s after the save: %s" % (kind, time.time() - saved, said))
    if line is not None and "mine.cu:%d:" % line not in said:
        failures.append("%s: the message does not name mine.cu:%d" % (kind, line))
    if line is None and "did not finish" not in said:
        failures.append("%s: the message does not say that it did not finish" % kind)
    if re.search(r"\.cu:\d+", said.replace("mine.cu", "")) or "/" in said:
        failures.append("%s: the message names another file or a path: %s" % (kind, said))
    # frames after it: each second's progress line must show new frames
    first = last = None
    seconds = 0
    end = time.time() + args.after
    while time.time() < end:
        f = int(out.wait_for(progress).group(1))
        first = f if first is None else first
        if last is not None and f <= last:
            failures.append("%s: no new frame in a second (frame %d)" % (kind, f))
        last = f
        seconds += 1
    print("%s: frames %d to %d over %.0f s after the refusal (%d progress lines)" % (kind, first, last, args.after,
                                                                                      seconds))
    rc, took, tail = probe()
    print("%s: a second process on the GPU: exit %s in %.1f s %s" % (kind, rc, took, " ".join(tail)))
    if rc != 0:
        failures.append("%s: a second process on the GPU failed (exit %s)" % (kind, rc))

proc.send_signal(signal.SIGINT)
t = time.time()
try:
    _, rest = proc.communicate(timeout=max(args.timeout, args.stop_s * 5))
except subprocess.TimeoutExpired:
    proc.kill()
    _, rest = proc.communicate()
took = time.time() - t
out.finish(rest.decode(errors="replace"))
print("SIGINT: the run ended in %.2f s with status %d" % (took, proc.returncode))
if took > args.stop_s:
    failures.append("SIGINT took %.2f s (at most %.1f)" % (took, args.stop_s))
if proc.returncode not in (0, 130):
    failures.append("the run ended with status %d" % proc.returncode)
    print("\n".join(out.lines[-8:]))
for f in failures:
    print("FAILED: " + f)
sys.exit(1 if failures else 0)
