#!/usr/bin/env python3
"""How soon the Hardware panel has a measurement after its key, on a machine with a CUDA GPU.

Starts a headless live run of each SCENE serving its page on loopback, presses K through the page's
own route (POST /key?k=k, as the page's button and key do) PRESSES times, each after the last
measurement was said, and times from the press to the app's line "hardware counters: ... measured
in N ms" (written when the figures are in the panel's state, the next frame shows them). The first
press also creates the profiler (CUPTI's setup); the others are what a user sees afterwards.
Prints, a scene a line: the kernel measured, the first press and the median and largest of the
rest, in ms. Exit 1 when a scene gives no measurement, or a press after the first takes over
--limit-ms.

  scripts/counters-key-latency.py [--bin kernelscope] [--presses 6] [--limit-ms 1000] [SCENE ...]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

from stderr_lines import StderrLines

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.environ.get("KS_BINARY", "kernelscope"))
ap.add_argument("--presses", type=int, default=6)
ap.add_argument("--limit-ms", type=float, default=1000.0)
ap.add_argument("--timeout", type=float, default=120.0)
ap.add_argument("scenes", nargs="*", default=["laplace3d", "matmul", "histogram", "spheres", "reduce"])
args = ap.parse_args()

status = 0
for scene in args.scenes:
    proc = subprocess.Popen([args.bin, scene, "--headless", "--serve", "0", "--frames", "100000000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def silence(why, scene=scene, proc=proc):
        print("\n".join(out.lines[-10:]))
        if proc.poll() is None:
            proc.kill()
        sys.exit("counters-key-latency: %s: %s" % (scene, why))

    out = StderrLines(proc, args.timeout, silence)
    url = out.wait_for(r"serving the live view at (http://\S+/)").group(1)
    times, what = [], ""
    for i in range(args.presses):
        req = urllib.request.Request(url + "key?k=k", method="POST", data=b"")
        t0 = time.monotonic()
        urllib.request.urlopen(req, timeout=args.timeout).read()
        m = out.wait_for(r"hardware counters: (.*) measured in (\d+) ms|hardware counters: (.*)")
        ms = (time.monotonic() - t0) * 1e3
        if m.group(3) is not None:  # no counters here: the app says why
            print("%s: no measurement: %s" % (scene, m.group(3)))
            status = 1
            break
        what = m.group(1)
        times.append((ms, float(m.group(2))))
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
    if not times:
        continue
    rest = [t[0] for t in times[1:]]
    cost = [t[1] for t in times[1:]]
    print("%s: %s: first press %.0f ms (measure %.0f ms); then median %.0f ms, largest %.0f ms over %d presses "
          "(the measurement itself: median %.0f ms)" % (
              scene, what, times[0][0], times[0][1], statistics.median(rest) if rest else float("nan"),
              max(rest) if rest else float("nan"), len(rest), statistics.median(cost) if cost else float("nan")))
    if rest and max(rest) > args.limit_ms:
        print("%s: OVER %.0f ms" % (scene, args.limit_ms))
        status = 1
sys.exit(status)
