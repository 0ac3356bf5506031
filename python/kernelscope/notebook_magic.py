"""%%kernelscope SCENE [--bench] [FLAGS]: the cell is the kernel file of a run of the app (headless,
its page on a loopback port of its own, shown by the widget), reloaded when the cell runs again."""
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .notebook_live import Live, page_fallback
from .notebook_widget import INSTALL_HINT, have_widget


# ---- %%kernelscope: the cell is your kernel ---------------------------------------------------

def binary_path():
    """The kernelscope program: KERNELSCOPE_BIN; else beside the C library the module loads
    (PREFIX/bin for PREFIX/lib, or the build folder itself); else the PATH."""
    given = os.environ.get("KERNELSCOPE_BIN")
    if given:
        return given
    from . import library_path
    lib = library_path()
    if os.path.isabs(lib) and os.path.exists(lib):
        folder = os.path.dirname(os.path.realpath(lib))
        for candidate in (os.path.join(folder, "..", "bin", "kernelscope"), os.path.join(folder, "kernelscope")):
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return os.path.normpath(candidate)
    found = shutil.which("kernelscope")
    if found:
        return found
    raise FileNotFoundError("the kernelscope program was not found: set KERNELSCOPE_BIN to its path, or put it on "
                            "the PATH (cmake --install puts it in PREFIX/bin)")


# flags the cell magic sets itself
_OWN_FLAGS = {"--kernel-file": "the cell is the kernel file", "--serve": "the widget shows the run",
              "--token": "the widget shows the run", "--window": "the run is headless",
              "--headless": "the run is headless already", "--edit": "the cell is the editor"}


def _parse(line):
    """(scene, flags, bench) from the magic's line; ValueError with one line when it is wrong."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise ValueError("%%%%kernelscope %s: %s" % (line.strip(), e)) from None
    bench = "--bench" in words
    words = [w for w in words if w != "--bench"]
    if not words or words[0].startswith("-"):
        raise ValueError("usage: %%kernelscope SCENE [--bench] [FLAGS...] (a scene with a kernel contract: "
                         "laplace3d, laplace2d, matmul, histogram, reduce)")
    for w in words[1:]:
        flag = w.split("=", 1)[0]
        if flag in _OWN_FLAGS:
            raise ValueError("%%%%kernelscope: %s is the magic's own (%s)" % (flag, _OWN_FLAGS[flag]))
    return words[0], words[1:], bench


def _write_atomically(path, text):
    """Written to a temporary name beside it, then renamed over it (the run's watch sees a save)."""
    fd, tmp = tempfile.mkstemp(prefix=".cell-", suffix=".tmp", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class _Run:
    """The app running the cell's kernel: headless, its page on a loopback port of its own."""

    URL = re.compile(r"serving the live view at (http://\S+)")

    def __init__(self, binary, scene, flags, path):
        self.key = (binary, scene, tuple(flags))
        self.path, self.scene = path, scene
        self.name = os.path.basename(path)
        self.live = None
        self.lines, self.ended = [], False
        self._cond = threading.Condition()
        # the file by its name, run in its folder: the lines name it as the cell ("cell.cu:3: error")
        cmd = [binary, scene, *flags, "--kernel-file", self.name, "--headless", "--serve", "127.0.0.1:0",
               "--token", secrets.token_hex(16)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     cwd=os.path.dirname(path), start_new_session=True)
        threading.Thread(target=self._read, name="kernelscope-run-output", daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
            live = self.live
            if live is not None and not self.URL.search(line):
                live.note(line)
        self.proc.wait()
        with self._cond:
            self.ended = True
            self._cond.notify_all()
        if self.live is not None:
            self.live.note("kernelscope exited with status %d" % self.proc.returncode)

    def follow(self, start, done, out, timeout):
        """Writes the lines from index start to out as they come, until done(line) is true for one
        (returned), the run ends (None) or timeout seconds pass (None)."""
        until = time.monotonic() + timeout
        i = start
        while True:
            with self._cond:
                while i >= len(self.lines) and not self.ended and time.monotonic() < until:
                    self._cond.wait(min(1.0, max(0.0, until - time.monotonic())))
                new, i = self.lines[i:], len(self.lines)
                ended = self.ended and i >= len(self.lines)
            for line in new:
                if done(line):
                    return line
                out(line)
            if ended or time.monotonic() >= until:
                return None

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.live is not None:
            self.live.stop("stopped")
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class KernelMagic:
    """%%kernelscope SCENE [--bench] [FLAGS]: the cell's text is the kernel file."""

    START_TIMEOUT = 300.0  # NVRTC and the checks at start-up (a cold checker, a large grid)

    def __init__(self, shell=None):
        self.shell = shell
        self.folder = tempfile.mkdtemp(prefix="kernelscope-notebook-")
        self.runs = {}  # scene -> _Run
        import atexit
        atexit.register(self.stop_all)

    def stop_all(self):
        for run in list(self.runs.values()):
            run.stop()
        self.runs.clear()

    def _file(self, scene):
        folder = os.path.join(self.folder, re.sub(r"[^A-Za-z0-9_.-]", "_", scene))
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, "cell.cu")

    def __call__(self, line, cell):
        from IPython.display import display
        try:
            scene, flags, bench = _parse(line)
            binary = binary_path()
        except (ValueError, FileNotFoundError) as e:
            print("kernelscope: %s" % e, file=sys.stderr)
            return None
        path = self._file(scene)
        if bench:
            return self._bench(binary, scene, flags, path, cell)
        run = self.runs.get(scene)
        if run is not None and run.alive() and run.key == (binary, scene, tuple(flags)):
            return self._reload(run, cell, display)
        if run is not None:
            run.stop()
            del self.runs[scene]
        _write_atomically(path, cell)
        run = _Run(binary, scene, flags, path)
        self.runs[scene] = run
        url_line = run.follow(0, lambda l: bool(_Run.URL.search(l)), print, self.START_TIMEOUT)
        sys.stdout.flush()
        if url_line is None:
            if run.alive():
                print("kernelscope: no page after %.0f s; the run goes on (re-run the cell to stop it and start "
                      "again)" % self.START_TIMEOUT, file=sys.stderr)
            else:
                run.proc.wait()
                print("kernelscope exited with status %d" % run.proc.returncode, file=sys.stderr)
                del self.runs[scene]
            return None
        url = _Run.URL.search(url_line).group(1)
        prefix = "kernelscope: %s: " % run.name
        if not any(line.startswith(prefix) for line in run.lines):  # the check's line, when it follows the page's
            at = run.lines.index(url_line) + 1
            checked = run.follow(at, lambda l: l.startswith(prefix), print, self.START_TIMEOUT)
            if checked is not None:
                print(checked)
        self._show(run, url, display)
        return None

    def _show(self, run, url, display):
        if not have_widget():
            fallback = page_fallback(url, INSTALL_HINT)
            if fallback:
                display(fallback, raw=True)
            return
        if run.live is None:
            run.live = Live(url, title="%s: %s" % (run.scene, run.name))
        display(run.live.widget)

    def _reload(self, run, cell, display):
        """The same run: the file rewritten, the run's watch builds, checks and swaps it in."""
        try:
            with open(run.path, encoding="utf-8") as f:
                same = f.read() == cell
        except OSError:
            same = False
        if same:
            print("kernelscope: %s is unchanged; it runs as it is" % run.name)
        else:
            start = len(run.lines)
            _write_atomically(run.path, cell)
            prefix = "kernelscope: %s: " % run.name
            done = run.follow(start, lambda l: l.startswith(prefix), print, self.START_TIMEOUT)
            if done is not None:
                print(done)
            elif not run.alive():
                print("kernelscope exited with status %d" % run.proc.returncode, file=sys.stderr)
                return None
        if run.live is not None:
            display(run.live.widget)  # the same live view, shown under this cell again
        return None

    def _bench(self, binary, scene, flags, path, cell):
        from IPython.display import Image, display
        _write_atomically(path, cell)
        out = tempfile.mkdtemp(prefix="bench-", dir=os.path.dirname(path))
        cmd = [binary, "bench", scene, *flags, "--kernel-file", os.path.basename(path), "--out", out]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=os.path.dirname(path))
        for raw in proc.stdout:
            print(raw.decode("utf-8", "replace"), end="")
        proc.wait()
        sys.stdout.flush()
        if proc.returncode != 0:
            print("kernelscope bench exited with status %d" % proc.returncode, file=sys.stderr)
        for name in sorted(os.listdir(out)):
            if name.endswith(".png"):
                display(Image(filename=os.path.join(out, name)))
        return None
