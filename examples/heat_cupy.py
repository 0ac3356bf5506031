#!/usr/bin/env python3
"""A user's 2D heat solver in CuPy, on the GPU, watched in the browser with kernelscope.

    .venv/bin/python examples/heat_cupy.py   # prints the page's URL; Q on the page stops it

(The module and the C library, built with CUDA, installed as the README's "Show your own field"
says, in a venv that sees CuPy.)

The field stays on the GPU: kernelscope reads it through __cuda_array_interface__ and samples the
picture with a kernel on CuPy's current stream, so show() does not wait for the GPU.
--steps N stops after N iterations, --save FILE.png keeps the last picture."""
import argparse

import cupy as cp

import kernelscope as ks

ap = argparse.ArgumentParser()
ap.add_argument("--size", type=int, default=4096)
ap.add_argument("--steps", type=int, default=0, help="stop after this many iterations (0: when the page says Q)")
ap.add_argument("--serve", default="127.0.0.1:0")
ap.add_argument("--save", help="the last picture, as a PNG")
a = ap.parse_args()

u = cp.zeros((a.size, a.size), cp.float32)
u[-1, :] = 1.0  # the hot top edge
new = u.copy()
with ks.Viewer(serve=a.serve or None, title="heat (CuPy)", colormap="inferno", range=(0.0, 1.0)) as v:
    print("kernelscope: open", v.url, flush=True)
    it = 0
    while not a.steps or it < a.steps:
        with v.stage("jacobi"):  # CUDA events on CuPy's stream, read back by the library, never waited for
            new[1:-1, 1:-1] = 0.25 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
        u, new = new, u
        it += 1
        v.show(u)
        if it % 100 == 0:  # a residual now and then: it costs a reduction and a copy back
            v.value("residual", float(cp.sqrt(cp.mean((u - new) ** 2))))
        if v.poll()["quit"]:
            break
    if a.save:
        print("kernelscope: saved a %d x %d picture after %d iterations" % (*v.save(a.save), it))
