#!/usr/bin/env python3
"""A field computed with PyTorch on the GPU (a 2D wave), watched in the browser with kernelscope.

    .venv/bin/python examples/torch_field.py   # prints the page's URL; Q on the page stops it

(The module and the C library installed as the README's "Show your own field" says, in a venv that
sees PyTorch.)

The tensor stays on the GPU: kernelscope reads it through __cuda_array_interface__ on PyTorch's
current stream. --steps N stops after N steps, --save FILE.png keeps the last picture."""
import argparse
import math

import torch

import kernelscope as ks

ap = argparse.ArgumentParser()
ap.add_argument("--size", type=int, default=2048)
ap.add_argument("--steps", type=int, default=0)
ap.add_argument("--serve", default="127.0.0.1:0")
ap.add_argument("--save")
a = ap.parse_args()

dev = torch.device("cuda")
y, x = torch.meshgrid(torch.linspace(-1, 1, a.size, device=dev), torch.linspace(-1, 1, a.size, device=dev),
                      indexing="ij")
r = torch.sqrt(x * x + y * y)
with ks.Viewer(serve=a.serve or None, title="wave (PyTorch)", colormap="turbo", range=(-1.0, 1.0)) as v:
    print("kernelscope: open", v.url, flush=True)
    step = 0
    while not a.steps or step < a.steps:
        with v.stage("field"):  # CUDA events on PyTorch's current stream
            field = torch.sin(12 * math.pi * r - 0.05 * step) * torch.exp(-2 * r)
        v.show(field)  # float32, contiguous, on the GPU
        if step % 60 == 0:  # now and then: it costs a reduction and a copy back
            v.value("energy", float(field.square().mean()))
        step += 1
        if v.poll()["quit"]:
            break
    if a.save:
        print("kernelscope: saved a %d x %d picture after %d steps" % (*v.save(a.save), step))
