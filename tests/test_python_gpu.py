"""The Python module with arrays in GPU memory (a CUDA machine with CuPy and/or PyTorch): the
picture of a device array equals the picture of the same values from host memory, through
__cuda_array_interface__ and through DLPack alone (a wrapper that offers nothing else), for
float32 / float64 / int32 / uint8, strided views and 3D slices; and show() never waits for the
caller's stream: right after it returns, a long kernel queued before it on that stream is still
running. Exit 77 when neither CuPy nor PyTorch (or no GPU) is here.
  python3 test_python_gpu.py SCRATCH   (PYTHONPATH=python, KERNELSCOPE_LIBRARY=libkernelscope.so)"""
import os
import sys
import time

try:
    import numpy as np
except ImportError:
    print("skipped: no NumPy")
    sys.exit(77)

import kernelscope as ks

scratch = sys.argv[1]
os.makedirs(scratch, exist_ok=True)
rng = np.random.default_rng(11)
cube = rng.random((9, 13, 21), dtype=np.float32)
checked = []


class OnlyDLPack:
    """An array that offers DLPack and nothing else (as JAX's do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def picture(v, a, name, **kw):
    v.show(a, **kw)
    path = os.path.join(scratch, name)
    size = v.save(path)
    return size, open(path, "rb").read()


def same_pictures(lib, to_device, sync):
    """Each layout and dtype: the device array's picture == the host array's."""
    with ks.Viewer(range=(0.0, 1.0)) as v:
        cases = [("2d", cube[4], {}), ("strided", cube[1, ::2, ::3], {}), ("x", cube, {"axis": "x", "index": 5}),
                 ("y", cube, {"axis": "y", "index": 3}), ("mid", cube, {})]
        for tag, host, kw in cases:
            dev = to_device(host)
            if tag == "strided":  # the view made on the device, so its strides are the device's
                dev = to_device(cube)[1, ::2, ::3]
            want = picture(v, host, "%s_%s_host.png" % (lib, tag), **kw)
            assert picture(v, dev, "%s_%s_dev.png" % (lib, tag), **kw) == want, "%s %s: device != host" % (lib, tag)
            sync()
            assert picture(v, OnlyDLPack(dev), "%s_%s_dl.png" % (lib, tag), **kw) == want, \
                "%s %s: DLPack != host" % (lib, tag)
        with ks.Viewer() as w:  # every dtype, each picture on its own range
            for dtype in ("float64", "int32", "uint8"):
                host = (cube[2] * 200).astype(dtype)
                want = picture(w, host, "%s_%s_host.png" % (lib, dtype))
                assert picture(w, to_device(host), "%s_%s_dev.png" % (lib, dtype)) == want, "%s %s" % (lib, dtype)
                assert picture(w, OnlyDLPack(to_device(host)), "%s_%s_dl.png" % (lib, dtype)) == want, \
                    "%s %s DLPack" % (lib, dtype)
    checked.append(lib)


def never_waits(lib, long_kernel, busy, field):
    """A kernel of about a second queued on the caller's stream, then show(): show returns while
    that kernel still runs (the stream is not done), so it queued its copy and waited for nothing."""
    with ks.Viewer() as v:
        v.show(field)  # the first show makes the viewer's device buffers: not what is timed
        v.save(os.path.join(scratch, "%s_first.png" % lib))
        long_kernel()
        t0 = time.perf_counter()
        v.show(field)
        took = time.perf_counter() - t0
        still_busy = busy()
        assert still_busy, "%s: the stream finished before show() returned (show waited, or the kernel was short)" % lib
        print("%s: show() returned in %.3f ms while the stream's kernel still ran" % (lib, took * 1e3))


try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001 (no CuPy, or no GPU for it)
    cp = None
    print("no CuPy here (%s)" % e)
if cp is not None:
    same_pictures("cupy", cp.asarray, cp.cuda.get_current_stream().synchronize)
    spin = cp.RawKernel(r'''
    extern "C" __global__ void spin(long long cycles, int *out) {
        long long t0 = clock64();
        while (clock64() - t0 < cycles) {}
        if (threadIdx.x == 0) out[0] = 1;
    }''', "spin")
    flag = cp.zeros(1, cp.int32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        field = cp.asarray(cube[4])
        cycles = np.int64(2_000_000_000)  # about a second at the clocks of today's GPUs
        never_waits("cupy", lambda: spin((1,), (32,), (cycles, flag)), lambda: not stream.done, field)
        stream.synchronize()

try:
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA device for PyTorch")
except Exception as e:  # noqa: BLE001
    torch = None
    print("no PyTorch with CUDA here (%s)" % e)
if torch is not None:
    same_pictures("torch", lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda(), torch.cuda.synchronize)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        field = torch.from_numpy(cube[4].copy()).cuda()
        big = torch.rand(4096, 4096, device="cuda")
        torch.cuda.synchronize()

        def matmuls():
            for _ in range(40):  # some 0.1 s or more of work on s
                big.matmul(big)
        never_waits("torch", matmuls, lambda: not s.query(), field)
        s.synchronize()

if not checked:
    sys.exit(77)
print("device arrays (%s): the same pictures as host arrays, through __cuda_array_interface__ and DLPack"
      % " and ".join(checked))
