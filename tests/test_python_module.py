"""The Python module (python/kernelscope), installed in a virtual environment, on NumPy arrays:
its picture of a field equals the C library's of the same field (tests/lib_consumer/consumer.c,
the same heat field in float32), layouts and slices agree, and bad input is a kernelscope.Error.
Run by tests/python_module.sh: python test_python_module.py CONSUMER SCRATCH"""
import os
import subprocess
import sys
import time
import urllib.request

import numpy as np

import kernelscope as ks

consumer, scratch = sys.argv[1], sys.argv[2]


def png(path):
    return open(path, "rb").read()


# 1. the C program's heat field, computed here the same way (float32, the same order of adds)
NX, NY = 96, 64
u = np.zeros((NY, NX), np.float32)
u[NY - 1, :] = 1.0
with ks.Viewer(title="consumer", range=(0.0, 1.0)) as v:
    assert v.url == ""
    for it in range(200):
        w = u.copy()
        w[1:-1, 1:-1] = np.float32(0.25) * (((u[1:-1, :-2] + u[1:-1, 2:]) + u[:-2, 1:-1]) + u[2:, 1:-1])
        u = w
        v.show(u)
        v.value("step", it)
    assert v.save(os.path.join(scratch, "py.png")) == (NX, NY)
subprocess.run([consumer, os.path.join(scratch, "c.png")], check=True, stdout=subprocess.DEVNULL)
assert png(os.path.join(scratch, "py.png")) == png(os.path.join(scratch, "c.png")), "the Python picture differs from C's"

# 2. layouts: a strided view and its contiguous copy; a 3D slice and the 2D array it is
rng = np.random.default_rng(5)
cube = rng.random((7, 11, 19), dtype=np.float32)
with ks.Viewer(range=(0.0, 1.0)) as v:
    def picture(a, name, **kw):
        v.show(a, **kw)
        path = os.path.join(scratch, name)
        size = v.save(path)
        return size, png(path)

    view = cube[0, ::2, ::3]
    assert picture(view, "view.png") == picture(np.ascontiguousarray(view), "copy.png")
    assert picture(cube, "x.png", axis="x", index=4) == picture(np.ascontiguousarray(cube[:, :, 4]), "x2d.png")
    assert picture(cube, "y.png", axis="y", index=2) == picture(np.ascontiguousarray(cube[:, 2, :]), "y2d.png")
    assert picture(cube, "mid.png") == picture(np.ascontiguousarray(cube[3]), "mid2d.png")
    for dtype in ("float64", "int32", "uint8"):
        v.show((cube[2] * 200).astype(dtype))
    for _ in range(3):
        with v.stage("numpy"):
            np.sort(rng.random(1000))
    v.stage_ms("given", 2.5)
    with v.stage("host block"):  # no CuPy or PyTorch here: the host clock
        np.sort(rng.random(100))
    assert picture(cube.astype(np.float64), "f64.png") == picture(cube, "f32.png")

    # broadcasts (strides of 0 bytes) show their values, even 2^60 points of one; negative strides (flipped
    # views) and big-endian arrays show what their contiguous native copies show
    assert picture(np.broadcast_to(np.float32(0.25), (1000, 1000)), "b.png") == \
        picture(np.full((1000, 1000), 0.25, np.float32), "b_copy.png")
    assert picture(np.broadcast_to(np.float32(0.75), (2 ** 30, 2 ** 30)), "b_huge.png") == \
        picture(np.full((1024, 1024), 0.75, np.float32), "b_huge_copy.png")
    for name, a in [("row", np.broadcast_to(cube[0, 0], (11, 19))), ("col", np.broadcast_to(cube[0, :, :1], (11, 19))),
                    ("flip", cube[3, ::-1]), ("mirror", cube[3, :, ::-2]), ("be4", cube[3].astype(">f4")),
                    ("be8", cube[3].astype(">f8")), ("bei4", (cube[3] * 200).astype(">i4"))]:
        assert picture(a, name + ".png") == picture(np.ascontiguousarray(a, a.dtype.newbyteorder("=")),
                                                    name + "_copy.png"), name
    for name, a, kw in [("b3", np.broadcast_to(cube[2], (5, 11, 19)), {"axis": "x", "index": 3}),
                        ("f3", cube[::-1, ::-2, ::-1], {"axis": "y", "index": 4}),
                        ("be3", cube.astype(">f4"), {"axis": "z", "index": 2})]:
        assert picture(a, name + ".png", **kw) == picture(np.ascontiguousarray(a, a.dtype.newbyteorder("=")),
                                                          name + "_copy.png", **kw), name
    assert picture(cube, "last.png", index=-1) == picture(cube[6], "last2d.png")  # Python's negative index

    # DLPack alone (as JAX offers it): the same picture as the array itself, a strided view too
    class OnlyDLPack:
        def __init__(self, a):
            self._a = a

        def __dlpack__(self, stream=None):
            return self._a.__dlpack__()

        def __dlpack_device__(self):
            return self._a.__dlpack_device__()

    if hasattr(np.ndarray, "__dlpack__"):
        strided = cube[:, ::2, 1:]
        assert picture(OnlyDLPack(strided), "dl.png", axis="x", index=2) == \
            picture(strided, "dl_direct.png", axis="x", index=2)
        try:
            v.show(OnlyDLPack(np.zeros((2, 2), np.int16)))
        except ks.Error as e:
            assert "DLPack dtype" in str(e), str(e)
        else:
            raise AssertionError("no error for an int16 DLPack array")

    # 3. bad input: one kernelscope.Error each, with the library's words
    class OnGpu:  # described as GPU memory, with no data: refused before any CUDA call
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": "<f4", "data": (0, False), "version": 3}

    class OnGpuBadType:
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": "<f2", "data": (4096, False), "version": 3}

    class OnGpuMasked:
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": "<f4", "data": (4096, False), "version": 3,
                                    "mask": object()}

    class OnGpuBigEndian:
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": ">f4", "data": (4096, False), "version": 3}

    class OnGpuMisaligned:  # strides the GPU cannot load floats at: refused in every build
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": "<f4", "data": (4096, False), "strides": (8, 2),
                                    "version": 3}

    bad = [(lambda: v.show(np.zeros((2, 2), np.int16)), "dtype int16"),
           (lambda: v.show(OnGpuMasked()), "mask"),
           (lambda: v.show(OnGpuBigEndian()), "big-endian"),
           (lambda: v.show(OnGpuMisaligned()), "aligned"),
           (lambda: v.show(cube, index=-8), "index -8 along z"),
           (lambda: v.show(np.zeros((2, 2, 2, 2), np.float32)), "4-dimensional"),
           (lambda: v.show(np.zeros((5,), np.float32)), "1-dimensional"),
           (lambda: v.show(cube, axis="w"), "axis 'w'"),
           (lambda: v.show(cube, index=99), "index 99 along z"),
           (lambda: v.show(OnGpu()), "has no data"),
           (lambda: v.show(OnGpuBadType()), "dtype <f2"),
           (lambda: v.value("", 1.0), "a name of 1 to"),
           (lambda: v.stage_ms("x", -1.0), "-1 ms"),
           (lambda: v.save(os.path.join(scratch, "no-such-folder", "x.png")), "x.png")]
    for call, words in bad:
        try:
            call()
        except ks.Error as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError("no error for: " + words)
# bad arguments are ValueErrors (kernelscope.Error too): the library's, and what Python alone sees, such as
# a NUL in a string (C would stop at it) or a number past the C field's 32 or 64 bits (ctypes would cut it)
with ks.Viewer() as v:
    v.show(cube[0])
    refused = [(lambda: ks.Viewer(title="heat\0x"), "NUL"), (lambda: ks.Viewer(serve="127.0.0.1:0\0x"), "NUL"),
               (lambda: ks.Viewer(colormap="gray\0"), "NUL"), (lambda: ks.Viewer(token="t" * 32 + "\0"), "NUL"),
               (lambda: ks.Viewer(record=os.path.join(scratch, "r.mp4\0.txt")), "NUL"),
               (lambda: ks.Viewer(max_size=(2 ** 32 + 64, 64)), "max_size"),
               (lambda: ks.Viewer(max_size=(64, -2 ** 40)), "max_size"),
               (lambda: ks.Viewer(max_size=(64,)), "max_size"),
               (lambda: ks.Viewer(record_fps=2 ** 32 + 30), "record_fps"),
               (lambda: ks.Viewer(range=(0.0,)), "range"),
               (lambda: ks.Viewer(range=(0.0, float("nan"))), "range"),
               (lambda: ks.Viewer(max_size=(9000, 64)), "max_width"),
               (lambda: v.value("resid\0ual", 1.0), "NUL"), (lambda: v.stage_ms("a\0b", 1.0), "NUL"),
               (lambda: v.stage("a\0b"), "NUL"), (lambda: v.save(os.path.join(scratch, "a.png\0b")), "NUL"),
               (lambda: v.show(cube, index=2 ** 64), "index"), (lambda: v.show(cube, index=1.5), "index"),
               (lambda: v.show(np.zeros((2, 2), np.float32)[:, :0]), "size[0] = 0"),
               (lambda: ks.Viewer(title="heat \udcff"), "UTF-8")]
    for call, words in refused:
        try:
            call()
        except ValueError as e:
            assert isinstance(e, ks.Error) and words in str(e) and "\n" not in str(e), (words, str(e))
        else:
            raise AssertionError("no ValueError for: " + words)
    assert not os.path.exists(os.path.join(scratch, "r.mp4"))
    # a file name as the file system has it, as open() takes it: bytes that are not UTF-8 too
    assert v.save(os.path.join(scratch, "caf\udce9.png")) == v.save(os.path.join(scratch.encode(), b"b.png"))
    assert os.path.exists(os.path.join(scratch.encode(), b"caf\xe9.png"))
for kw, words in [({"colormap": "rainbow"}, "unknown colormap 'rainbow'"), ({"range": (2, 1)}, "range 2 .. 1"),
                  ({"title": 5}, "title must be a str"), ({"serve": "127.0.0.1:99999"}, "99999")]:
    try:
        ks.Viewer(**kw)
    except ks.Error as e:
        assert words in str(e), (words, str(e))
    else:
        raise AssertionError("no error for %r" % kw)
# a window without a display: refused in one line (the window itself: tests/viewer_window.sh)
saved_display = {k: os.environ.pop(k) for k in ("DISPLAY", "WAYLAND_DISPLAY") if k in os.environ}
try:
    ks.Viewer(window=True)
except ks.Error as e:
    assert "no display" in str(e) and "\n" not in str(e), str(e)
else:
    raise AssertionError("a window without a display")
os.environ.update(saved_display)
# 4. a recording, finished by close()
video = os.path.join(scratch, "run.mkv")
try:
    with ks.Viewer(record=video, record_fps=20) as v:
        for it in range(5):
            v.show(cube[it])
    assert os.path.getsize(video) > 0 and not any(n.startswith("run.mkv.tmp") for n in os.listdir(scratch))
except ks.Error as e:  # a library built without FFmpeg says so; anything else is a failure
    assert "without" in str(e), str(e)
# 5. keys from the page reach poll(): your own by name, Space as the pause
with ks.Viewer(serve="127.0.0.1:0") as v:
    v.show(cube[0])
    for name in ("r", "left", "space"):
        with urllib.request.urlopen(urllib.request.Request(v.url.rstrip("/") + "/key?k=" + name, data=b"",
                                                           method="POST")) as answer:
            assert answer.status == 204
    keys, paused = [], False
    while len(keys) <= 2:  # the viewer's thread takes them now and then: its poll() is the signal, however late
        asked = v.poll()
        keys += asked["keys"]
        paused = asked["paused"]
        if keys == ["r", "left"] and paused:
            break
        time.sleep(0.02)
    assert keys == ["r", "left"] and paused, (keys, paused)
closed = ks.Viewer()
closed.close()
try:
    closed.show(cube)
except ks.Error as e:
    assert "closed" in str(e)
else:
    raise AssertionError("a closed viewer took a field")
print("ok: the Python module's picture equals C's; layouts, slices and dtypes agree; %d bad inputs refused" % (len(bad) + len(refused) + 5))
