"""kernelscope in a notebook: the live view as a cell's output, and a cell that is your kernel.

    import kernelscope as ks
    v = ks.Viewer(title="heat")      # in a notebook: a page on a free loopback port
    v                                # (or display(v.widget())): the picture, values, stages, live

    %load_ext kernelscope
    %%kernelscope laplace3d --grid 256
    extern "C" __global__ void jacobi(...) { ... }     # the cell is the kernel file

The widget (anywidget, an optional dependency: pip install 'kernelscope[notebook]') is fed by
this kernel process: a relay reads the viewer's own loopback page (/stream.mjpg, the JPEG
pictures the page shows, and /state.json) and hands each picture to the notebook as a binary
message, so only the notebook server has to be reachable. Keys pressed in the widget go back as
the page's do (POST /key), so poll() sees them; with ipykernel 7 they are taken on a thread of
their own (a subshell) while a cell runs the solver, with older kernels once the cell is done.

The widget is in notebook_widget.py, the relay that feeds it (and the page where it cannot run) in
notebook_live.py, the cell magic in notebook_magic.py; this module is what kernelscope and IPython
import.
"""
import sys

# the names this module offers (kernelscope's Viewer, the tests and notebooks use them)
from .notebook_live import Live, in_colab, page_fallback  # noqa: F401
from .notebook_magic import KernelMagic, binary_path  # noqa: F401
from .notebook_widget import INSTALL_HINT, have_widget  # noqa: F401

_magic = None


def load_ipython_extension(ipython):
    """%load_ext kernelscope: the %%kernelscope cell magic."""
    global _magic
    if _magic is None:
        _magic = KernelMagic(ipython)
    ipython.register_magic_function(_magic, magic_kind="cell", magic_name="kernelscope")


def unload_ipython_extension(ipython):
    global _magic
    if _magic is not None:
        _magic.stop_all()
        _magic = None


def in_kernel():
    """Whether this is a notebook's kernel (IPython with a kernel connection)."""
    ip = sys.modules.get("IPython")
    if ip is None or "ipykernel" not in sys.modules:
        return False
    try:
        shell = ip.get_ipython()
    except Exception:
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None
