#!/usr/bin/env python3
"""A user's 2D heat solver in NumPy, watched in the browser with kernelscope.

    python3 examples/heat_numpy.py           # prints the page's URL; on the page Space pauses, N
                                             # steps, R starts again from a cold plate, Q stops

(The module and the C library installed as the README's "Show your own field" says.) Jacobi
iterations on a square plate whose top edge is hot; the page shows the field and the residual as
it converges. --steps N stops after N iterations, --save FILE.png keeps the last picture (what the
tests run). Ctrl-C ends the run there: the picture saved, the viewer closed, exit 130 (a second
Ctrl-C while it closes ends it at once)."""
import argparse
import signal
import sys
import time

import numpy as np

import kernelscope as ks


def run(a):
    u = np.zeros((a.size, a.size), np.float32)
    u[-1, :] = 1.0  # the hot top edge (rows are y, the last row at the top of the picture)
    it, residual, stopped = 0, float("nan"), False
    with ks.Viewer(serve=a.serve or None, title="heat (NumPy)", colormap="inferno", range=(0.0, 1.0)) as v:
        if v.url:
            print("kernelscope: open", v.url, flush=True)
        try:
            while not a.steps or it < a.steps:
                with v.stage("jacobi"):  # the page's stage panel: this step's median time
                    new = u.copy()
                    new[1:-1, 1:-1] = 0.25 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
                residual = float(np.sqrt(np.mean((new - u) ** 2)))
                u = new
                it += 1
                v.show(u)
                v.value("residual", residual)
                asked = v.poll()
                while asked["paused"] and not asked["steps"] and not asked["quit"]:  # Space: wait for Space, or N
                    time.sleep(0.02)
                    asked = v.poll()
                if asked["quit"]:
                    break
                if "r" in asked["keys"]:  # R, a key of this program's own: the plate cold again
                    u[:-1, :] = 0.0
        except KeyboardInterrupt:  # Ctrl-C: the run ends after the step it was in
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second one while closing ends it at once
            stopped = True
        if a.save and it:
            print("kernelscope: saved a %d x %d picture after %d iterations (residual %.3g)"
                  % (*v.save(a.save), it, residual), flush=True)
    if stopped:
        print("kernelscope: stopped by Ctrl-C after %d iterations" % it, file=sys.stderr)
    return 130 if stopped else 0


def main():
    def at_least(lo):
        def integer(text):  # argparse says what is wrong in one line and exits 2
            n = int(text)
            if n < lo:
                raise argparse.ArgumentTypeError("%s: at least %d" % (text, lo))
            return n
        return integer

    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=at_least(3), default=512, help="points along each side (at least 3)")
    ap.add_argument("--steps", type=at_least(0), default=0, help="stop after this many iterations (0: when the page says Q)")
    ap.add_argument("--serve", default="127.0.0.1:0")
    ap.add_argument("--save", help="the last picture, as a PNG")
    a = ap.parse_args()
    try:
        return run(a)
    except KeyboardInterrupt:  # Ctrl-C before the loop (starting the viewer): nothing to finish
        return 130


if __name__ == "__main__":
    sys.exit(main())
