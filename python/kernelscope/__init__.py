"""kernelscope from Python: watch a field of your own program live in a browser page.

    import numpy as np
    import kernelscope as ks

    v = ks.Viewer(serve="127.0.0.1:0", title="heat")   # the page: print(v.url)
    for it in range(1000):
        u = step(u)
        v.show(u)                 # a 2D array, or a 3D one (a slice of it is shown)
        v.value("residual", r)    # the page's convergence plot
    v.save("last.png")
    v.close()

A thin layer (ctypes) over the kernelscope C library (lib/kernelscope.h). `cmake --install build
--prefix PREFIX` installs the library and this module's source with the library's path written in
(PREFIX/share/kernelscope/python): pip-installed from there, the module loads that library. The
environment variable KERNELSCOPE_LIBRARY (the path of libkernelscope.so) overrides it; without
either, the loader's own search. It takes NumPy arrays, and arrays in GPU
memory through __cuda_array_interface__ (CuPy, PyTorch CUDA tensors, Numba): their picture is
sampled by a kernel queued on the array's own stream, so show() does not wait for the GPU. Every
failure is a kernelscope.Error with the library's one-line message; a bad argument is also a
ValueError (kernelscope.InvalidArgument).

In a notebook (kernelscope.notebook): a Viewer is a live output (the last expression of a cell, or
display(v.widget())), streamed through the notebook's own kernel connection; without serve= it
gets a page on a free loopback port there. %load_ext kernelscope adds the %%kernelscope cell
magic: the cell is a kernel file for a scene of the app (kernelscope SCENE --kernel-file).
"""
import ctypes
import ctypes.util
import operator
import os
import sys

__all__ = ["Viewer", "Error", "InvalidArgument", "library_path", "load_ipython_extension"]
__version__ = "0.1.0"


class Error(RuntimeError):
    """A call the library refused, with its one-line reason."""


class InvalidArgument(Error, ValueError):
    """A bad argument (the library's KS_VIEWER_EINVALID, or what Python sees first: a NUL byte in a
    string, a number past the C field's range)."""


_EINVALID = 1  # KS_VIEWER_EINVALID
_BROADCAST = -2 ** 63  # KS_VIEWER_BROADCAST: a stride of 0 bytes (0 itself means packed)
_INT_MAX, _LL_MAX = 2 ** 31 - 1, 2 ** 63 - 1


_DTYPES = {"float32": 0, "float64": 1, "uint8": 2, "int32": 3}
_TYPESTRS = {"<f4": 0, "<f8": 1, "|u1": 2, "<u1": 2, "<i4": 3}  # little-endian, as every CUDA GPU
_SIZES = {0: 4, 1: 8, 2: 1, 3: 4}
_AXES = {"z": 0, "x": 1, "y": 2}


# DLPack (dlpack.h, version 0.x ABI of DLManagedTensor): device types and the structures
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_DTYPES = {(2, 32, 1): 0, (2, 64, 1): 1, (1, 8, 1): 2, (0, 32, 1): 3}  # (code, bits, lanes): float, uint, int
_DL_USED = b"used_dltensor"


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]


class _Desc(ctypes.Structure):
    _fields_ = [("title", ctypes.c_char_p), ("serve", ctypes.c_char_p), ("token", ctypes.c_char_p),
                ("colormap", ctypes.c_char_p), ("range", ctypes.c_double * 2), ("max_width", ctypes.c_int),
                ("max_height", ctypes.c_int), ("record", ctypes.c_char_p), ("record_fps", ctypes.c_int),
                ("window", ctypes.c_int)]


class _Field(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("memory", ctypes.c_int), ("dims", ctypes.c_int),
                ("size", ctypes.c_longlong * 3), ("stride", ctypes.c_longlong * 3), ("slice_axis", ctypes.c_int),
                ("slice", ctypes.c_longlong), ("stream", ctypes.c_void_p)]


_KEYS = 32  # KS_VIEWER_KEYS


class _Input(ctypes.Structure):
    _fields_ = [("paused", ctypes.c_int), ("steps", ctypes.c_int), ("quit", ctypes.c_int), ("nkeys", ctypes.c_int),
                ("keys", ctypes.c_int * _KEYS), ("keys_dropped", ctypes.c_int)]


_lib = None


def library_path():
    """Where the C library is looked for: KERNELSCOPE_LIBRARY; else the library installed with this module
    (cmake --install wrote its path into the module's source); else the loader's own search."""
    given = os.environ.get("KERNELSCOPE_LIBRARY")
    if given:
        return given
    try:
        from ._installed import LIBRARY
    except ImportError:  # the module from the source tree (pip install ./python)
        LIBRARY = None
    if LIBRARY and os.path.exists(LIBRARY):
        return LIBRARY
    return ctypes.util.find_library("kernelscope") or "libkernelscope.so.0"


def _library():
    global _lib
    if _lib is None:
        path = library_path()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise Error("cannot load the kernelscope C library (%s): install it with cmake --install and this "
                        "module from PREFIX/share/kernelscope/python, or set KERNELSCOPE_LIBRARY to its path"
                        % e) from None
        lib.ks_viewer_create.argtypes = [ctypes.POINTER(_Desc), ctypes.POINTER(ctypes.c_void_p)]
        lib.ks_viewer_show.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Field)]
        lib.ks_viewer_value.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double]
        lib.ks_viewer_stage_ms.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double]
        lib.ks_viewer_stage.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.ks_viewer_save.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                                       ctypes.POINTER(ctypes.c_int)]
        lib.ks_viewer_poll.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Input)]
        lib.ks_viewer_key_name.argtypes = [ctypes.c_int]
        lib.ks_viewer_key_name.restype = ctypes.c_char_p
        lib.ks_viewer_url.argtypes = [ctypes.c_void_p]
        lib.ks_viewer_url.restype = ctypes.c_char_p
        lib.ks_viewer_last_error.restype = ctypes.c_char_p
        lib.ks_viewer_destroy.argtypes = [ctypes.c_void_p]
        lib.ks_viewer_close.argtypes = [ctypes.c_void_p]
        _lib = lib
    return _lib


def _check(status):
    if status != 0:
        message = _library().ks_viewer_last_error().decode("utf-8", "replace")
        raise (InvalidArgument if status == _EINVALID else Error)(message)


def _text(s, what):
    """s as the C string it is, UTF-8; a NUL byte inside would end it early, silently: refused."""
    if s is None:
        return None
    if not isinstance(s, str):
        raise Error("%s must be a str, not %s" % (what, type(s).__name__))
    if "\0" in s:
        raise InvalidArgument("%s has a NUL byte at %d (a C string would end there)" % (what, s.index("\0")))
    try:
        return s.encode()
    except UnicodeEncodeError as e:
        raise InvalidArgument("%s is not text that UTF-8 can hold (%s)" % (what, e.reason)) from None


def _path(p, what):
    """A file name (str, bytes or os.PathLike) as the bytes the file system takes, as open() would."""
    if p is None:
        return None
    b = os.fsencode(p)
    if b"\0" in b:
        raise InvalidArgument("%s has a NUL byte at %d (a C string would end there)" % (what, b.index(b"\0")))
    return b


def _int(x, what, lo, hi):
    """x as a whole number in lo .. hi (the C field's range: ctypes would cut a larger one silently)."""
    try:
        n = operator.index(x)
    except TypeError:
        raise InvalidArgument("%s must be an integer, not %s" % (what, type(x).__name__)) from None
    if not lo <= n <= hi:
        raise InvalidArgument("%s = %d is out of range (%d .. %d)" % (what, n, lo, hi))
    return n


def _pair(x, what):
    try:
        first, second = x
    except (TypeError, ValueError):
        raise InvalidArgument("%s must be a pair, not %r" % (what, x)) from None
    return first, second


class _Stage:
    """with v.stage(name): CUDA events on the current stream of CuPy or PyTorch (whichever the program
    has imported) around the block, timed by the library once they have happened; the host clock
    when neither is in use."""

    def __init__(self, viewer, name):
        self._viewer, self._name = viewer, name

    def __enter__(self):
        import time
        self._pair = self._viewer._event_pair(self._name)
        if self._pair is not None:
            self._pair[0].record()
        else:
            self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        import time
        if self._pair is not None:
            start, end = self._pair
            end.record()
            self._viewer._stage_events(self._name, _event_handle(start), _event_handle(end))
        else:
            self._viewer.stage_ms(self._name, (time.perf_counter() - self._t0) * 1e3)
        return False


def _event_handle(ev):
    """The cudaEvent_t of a CuPy or PyTorch event."""
    return ev.ptr if hasattr(ev, "ptr") else ev.cuda_event


def _new_event_pair():
    """Two timing events of the framework in use (CuPy first, then PyTorch), or None."""
    cp = sys.modules.get("cupy")
    if cp is not None:
        try:
            if cp.cuda.runtime.getDeviceCount() > 0:
                return cp.cuda.Event(), cp.cuda.Event()
        except Exception:  # no device or no driver: the host clock
            pass
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    return None


class Viewer:
    """A viewer of one field: Viewer(serve="127.0.0.1:0", title=..., colormap="viridis",
    range=(lo, hi), max_size=(w, h), token=None, record="run.mp4", record_fps=30, window=False).
    window=True opens a window on this machine's display as well (its keys: Space, N, Q). Use it as a
    context manager or call close() (which finishes the recording and says when it could not)."""

    def __init__(self, serve=None, title=None, colormap=None, range=None, max_size=None, token=None, record=None,
                 record_fps=0, window=False):
        lib = _library()
        if serve is None and "ipykernel" in sys.modules:
            from . import notebook
            if notebook.in_kernel():  # the widget shows the page: one on loopback, reachable from this process alone
                serve = "127.0.0.1:0"
        self._title = title or "kernelscope"
        self._live = None
        d = _Desc()
        # the bytes objects must live as long as the call
        self._keep = [_text(title, "title"), _text(serve, "serve"), _text(token, "token"), _text(colormap, "colormap"),
                      _path(record, "record")]
        d.title, d.serve, d.token, d.colormap, d.record = self._keep
        d.record_fps = _int(record_fps, "record_fps", -_INT_MAX - 1, _INT_MAX)  # the library's range: 0 .. 240
        d.window = 1 if window else 0
        if range is not None:
            lo, hi = _pair(range, "range")
            d.range[0], d.range[1] = float(lo), float(hi)
        if max_size is not None:
            w, h = _pair(max_size, "max_size")
            d.max_width = _int(w, "max_size's width", -_INT_MAX - 1, _INT_MAX)
            d.max_height = _int(h, "max_size's height", -_INT_MAX - 1, _INT_MAX)
        handle = ctypes.c_void_p()
        _check(lib.ks_viewer_create(ctypes.byref(d), ctypes.byref(handle)))
        self._v = handle

    @property
    def url(self):
        """The page to open ("" without serve)."""
        return _library().ks_viewer_url(self._handle()).decode()

    def widget(self, max_fps=60):
        """The live view as a notebook widget (anywidget): the picture, the values, the plot and the
        stage table, relayed from the viewer's page through this kernel at most max_fps pictures a
        second; keys pressed in it reach poll(). One widget a viewer, shown as often as you like."""
        from . import notebook
        if not self.url:
            raise Error("the widget shows the viewer's page: make the viewer with serve='127.0.0.1:0' (the default "
                        "in a notebook)")
        if not notebook.have_widget():
            raise Error(notebook.INSTALL_HINT)
        if self._live is None:
            self._live = notebook.Live(self.url, title=self._title, max_fps=max_fps)
        return self._live.widget

    def _repr_mimebundle_(self, include=None, exclude=None):
        """In a notebook, the viewer shown is its widget; without anywidget, the page (Colab: through
        its port proxy) and how to get the widget."""
        from . import notebook
        if self._v is None or not self.url:
            return {"text/plain": "kernelscope.Viewer(%s)" % ("closed" if self._v is None else "no page: serve=None")}
        if not notebook.in_kernel():  # IPython in a terminal: no notebook to draw in
            return {"text/plain": "kernelscope.Viewer(%s)" % self.url}
        if notebook.have_widget():
            return self.widget()._repr_mimebundle_(include=include, exclude=exclude)
        return notebook.page_fallback(self.url, notebook.INSTALL_HINT) or {
            "text/plain": "kernelscope: the page, through Colab's proxy"}

    def _handle(self):
        if self._v is None:
            raise Error("the viewer is closed")
        return self._v

    def show(self, array, axis="z", index=None):
        """Shows a 2D array (rows are y, columns x; the first row at the bottom of the picture)
        or a slice of a 3D one (axis "z", "x" or "y"; index: the slice, default the middle one).
        Only what is shown is copied; the call does not wait for the picture."""
        if axis not in _AXES:
            raise Error("axis %r: one of 'z', 'x', 'y'" % (axis,))
        cai = getattr(array, "__cuda_array_interface__", None)
        if cai is not None:
            return self._show_device(cai, axis, index)
        if hasattr(array, "__dlpack__") and not hasattr(array, "__array_interface__") and not hasattr(array, "__array__"):
            return self._show_dlpack(array, axis, index)  # JAX and others that speak DLPack alone
        try:
            import numpy as np
        except ImportError:
            raise Error("kernelscope.Viewer.show needs NumPy") from None
        a = np.asarray(array)
        if a.dtype.name not in _DTYPES:
            raise Error("dtype %s: kernelscope shows float32, float64, uint8 and int32" % a.dtype)
        if not a.dtype.isnative:  # big-endian ('>f4'): the library reads this machine's byte order
            a = a.astype(a.dtype.newbyteorder("="))
        self._show(a.ctypes.data, _DTYPES[a.dtype.name], 0, a.shape, a.strides, None, axis, index)

    def _show_device(self, cai, axis, index):
        """An array in GPU memory, described by its __cuda_array_interface__ (version 2 or 3)."""
        shape, typestr = tuple(cai["shape"]), cai["typestr"]
        if cai.get("mask") is not None:
            raise Error("an array with a mask (__cuda_array_interface__['mask']): kernelscope shows every point")
        if typestr[:1] == ">" and typestr[1:] in ("f4", "f8", "i4"):
            raise Error("dtype %s is big-endian: kernelscope reads the GPU's byte order (make a little-endian copy)"
                        % typestr)
        if typestr not in _TYPESTRS:
            raise Error("dtype %s: kernelscope shows float32, float64, uint8 and int32" % typestr)
        dtype = _TYPESTRS[typestr]
        strides = cai.get("strides")
        if strides is None:  # C order
            strides, step = [], _SIZES[dtype]
            for n in reversed(shape):
                strides.insert(0, step)
                step *= n
        stream = cai.get("stream")  # version 3: the stream the array's work is on (None: no need)
        self._show(cai["data"][0], dtype, 1, shape, strides, stream if stream not in (None, 0) else None, axis, index)

    def _show_dlpack(self, obj, axis, index):
        """An array that offers DLPack (__dlpack__, __dlpack_device__): host memory, or CUDA memory
        made ready on the legacy default stream (the stream the library then samples it on)."""
        dev_type, _ = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (_DL_CPU, 0)
        if dev_type not in (_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED):
            raise Error("a DLPack array on device type %d: kernelscope takes host and CUDA memory" % dev_type)
        on_gpu = dev_type in (_DL_CUDA, _DL_CUDA_MANAGED)
        capsule = obj.__dlpack__(stream=1) if on_gpu else obj.__dlpack__()
        api = ctypes.pythonapi
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
        address = api.PyCapsule_GetPointer(capsule, b"dltensor")
        managed = _DLManagedTensor.from_address(address)
        try:
            t = managed.dl_tensor
            key = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
            if key not in _DL_DTYPES:
                raise Error("DLPack dtype (code %d, %d bits, %d lanes): kernelscope shows float32, float64, uint8 "
                            "and int32" % key)
            dtype = _DL_DTYPES[key]
            shape = [t.shape[i] for i in range(t.ndim)]
            if t.strides:
                strides = [t.strides[i] * _SIZES[dtype] for i in range(t.ndim)]
            else:  # C order
                strides, step = [], _SIZES[dtype]
                for n in reversed(shape):
                    strides.insert(0, step)
                    step *= n
            self._show((t.data or 0) + t.byte_offset, dtype, 1 if on_gpu else 0, shape, strides, None, axis, index)
        finally:  # the tensor is ours to give back: mark the capsule used and call its deleter once
            api.PyCapsule_SetName(capsule, _DL_USED)
            if managed.deleter:
                managed.deleter(address)

    def _show(self, data, dtype, memory, shape, strides, stream, axis, index):
        """The field for the library: sizes and strides reversed, as its axes are x fastest (C order is
        (z, y, x)); a stride of 0 bytes (a broadcast) as KS_VIEWER_BROADCAST, negative ones as they are
        (the library checks that every point's address can be computed)."""
        shape, strides = tuple(shape), tuple(strides)
        if len(shape) not in (2, 3):
            raise Error("a %d-dimensional array: kernelscope shows 2D and 3D fields" % len(shape))
        if len(strides) != len(shape):
            raise Error("%d strides for %d dimensions" % (len(strides), len(shape)))
        f = _Field()
        f.data = _int(data or 0, "the data pointer", 0, 2 ** 64 - 1)
        f.dtype, f.memory, f.dims, f.stream = dtype, memory, len(shape), stream
        for i, (n, st) in enumerate(zip(reversed(shape), reversed(strides))):
            f.size[i] = _int(n, "the size of axis %d" % i, 0, _LL_MAX)
            st = _int(st, "the stride of axis %d" % i, -_LL_MAX, _LL_MAX)
            f.stride[i] = st if st != 0 else _BROADCAST
        f.slice_axis = _AXES[axis]
        if index is not None and len(shape) == 3:
            cut = {"z": 0, "y": 1, "x": 2}[axis]  # the C-order axis the slice is across
            n = shape[cut]
            i = _int(index, "index", -_LL_MAX, _LL_MAX)
            if not -n <= i < n:
                raise InvalidArgument("index %d along %s: the array has %d slices there (0 .. %d, or -%d .. -1)"
                                      % (i, axis, n, n - 1, n))
            f.slice = (i % n) + 1  # the library counts from 1
        _check(_library().ks_viewer_show(self._handle(), ctypes.byref(f)))

    def value(self, name, x):
        """One more point of the series name (the first one named is the page's plot)."""
        _check(_library().ks_viewer_value(self._handle(), _text(name, "name"), float(x)))

    def stage_ms(self, name, ms):
        """One timing of your stage name, in milliseconds: the page's stage panel shows its median."""
        _check(_library().ks_viewer_stage_ms(self._handle(), _text(name, "name"), float(ms)))

    def stage(self, name):
        """with v.stage("jacobi"): ... times the block with CUDA events on the current stream when the
        program uses CuPy or PyTorch (the GPU's time of the work queued in the block, read by the
        library once it is done, never waited for), else on the host clock (time.perf_counter)."""
        _text(name, "name")
        return _Stage(self, name)

    def _event_pair(self, name):
        pairs = self.__dict__.setdefault("_pairs", {})
        if name not in pairs:  # kept for the viewer's life: the library may read them later
            pairs[name] = _new_event_pair()
        return pairs[name]

    def _stage_events(self, name, start, end):
        _check(_library().ks_viewer_stage(self._handle(), _text(name, "name"), ctypes.c_void_p(start),
                                          ctypes.c_void_p(end)))

    def save(self, path):
        """The newest picture as a PNG; returns (width, height)."""
        w, h = ctypes.c_int(), ctypes.c_int()
        _check(_library().ks_viewer_save(self._handle(), _path(path, "path"), ctypes.byref(w),
                                         ctypes.byref(h)))
        return w.value, h.value

    def poll(self):
        """What the page and the window asked for since the last poll: dict(paused, steps, quit, keys),
        keys the other keys pressed, oldest first, by the page's names ("r", "5", "left", "plus")."""
        i = _Input()
        lib = _library()
        _check(lib.ks_viewer_poll(self._handle(), ctypes.byref(i)))
        keys = [lib.ks_viewer_key_name(i.keys[k]).decode() for k in range(i.nkeys)]
        return {"paused": bool(i.paused), "steps": i.steps, "quit": bool(i.quit), "keys": keys}

    def close(self):
        """Ends the viewer (the recording finished and renamed into place); a kernelscope.Error
        when the recording could not be written."""
        if self._v is not None:
            v, self._v = self._v, None
            try:
                _check(_library().ks_viewer_close(v))
            finally:
                if getattr(self, "_live", None) is not None:
                    self._live.stop("closed (the last picture stays)")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_v", None) is not None:
            _library().ks_viewer_destroy(self._v)
            self._v = None


def load_ipython_extension(ipython):
    """%load_ext kernelscope: the %%kernelscope cell magic (kernelscope.notebook)."""
    from . import notebook
    notebook.load_ipython_extension(ipython)


def unload_ipython_extension(ipython):
    from . import notebook
    notebook.unload_ipython_extension(ipython)
