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
"""
import html
import http.client
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

INSTALL_HINT = ("the notebook widget needs anywidget: pip install 'kernelscope[notebook]' (or pip install "
                "anywidget) in this kernel's environment, then restart the kernel")

# ---- the widget's page side: plain ESM for anywidget, drawing into a canvas -------------------

_ESM = r"""
const NAMED = { " ": "space", Tab: "tab", Escape: "escape", ArrowLeft: "left", ArrowRight: "right",
  ArrowUp: "up", ArrowDown: "down", PageUp: "page_up", PageDown: "page_down", "[": "left_bracket",
  "]": "right_bracket", "+": "plus", "=": "equal", "-": "minus", F1: "f1" };

function b64(view) {            /* the newest picture's bytes, for a test to compare */
  const u8 = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let s = "";
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s);
}

function fmt(f) {
  if (f.format === "text" || typeof f.value !== "number") return String(f.value);
  const v = f.value;
  const s = f.format === "int" ? v.toFixed(0) : f.format === "sci" ? v.toExponential(3)
    : f.format === "pct" ? (100 * v).toFixed(0) + "%" : /^f(\d)$/.test(f.format) ? v.toFixed(+f.format[1])
    : v.toPrecision(4).replace(/\.?0+(e|$)/, "$1");
  return f.unit ? s + " " + f.unit : s;
}

function render({ model, el }) {
  el.classList.add("kernelscope-widget");
  el.tabIndex = 0;
  el.dataset.lmSuppressShortcuts = "true";   /* JupyterLab: the keys are the run's, not the notebook's */
  el.dataset.frames = "0";
  el.innerHTML = '<div class="ks-head"><b class="ks-title"></b> <span class="ks-status"></span></div>' +
    '<div class="ks-body"><canvas class="ks-pic" width="1" height="1"></canvas><div class="ks-side">' +
    '<table class="ks-fields"></table><div class="ks-plot-title"></div><canvas class="ks-plot" width="240" height="90">' +
    '</canvas><table class="ks-stages"></table></div></div><pre class="ks-log"></pre>';
  const $ = (c) => el.querySelector(c);
  const pic = $(".ks-pic"), ctx = pic.getContext("2d");
  let frames = 0, newest = null, shown = null, drawing = false;
  el.kernelscopeLastFrame = () => (shown ? b64(shown) : "");

  async function drawNewest() {   /* decode only the newest picture: a slow page drops, never queues */
    drawing = true;
    while (newest) {
      const view = newest;
      newest = null;
      try {
        const bmp = await createImageBitmap(new Blob([view], { type: "image/jpeg" }));
        if (pic.width !== bmp.width || pic.height !== bmp.height) { pic.width = bmp.width; pic.height = bmp.height; }
        ctx.drawImage(bmp, 0, 0);
        bmp.close();
        shown = view;
        el.dataset.frames = String(++frames);
      } catch (e) { $(".ks-status").textContent = "a picture could not be decoded: " + e; }
    }
    drawing = false;
  }
  model.on("msg:custom", (msg, buffers) => {
    if (msg && msg.type === "frame" && buffers && buffers.length) {
      newest = buffers[0];
      if (!drawing) drawNewest();
    }
  });

  function plot(p) {
    const cv = $(".ks-plot"), g = cv.getContext("2d");
    g.clearRect(0, 0, cv.width, cv.height);
    $(".ks-plot-title").textContent = p ? p.title : "";
    if (!p || !p.x || p.x.length < 2) return;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    p.x.forEach((x, i) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, p.y[i]); y1 = Math.max(y1, p.y[i]); });
    if (x1 === x0) x1 = x0 + 1;
    if (y1 === y0) { y0 -= 0.5; y1 += 0.5; }
    g.strokeStyle = "#e8a33d"; g.lineWidth = 1.5; g.beginPath();
    p.x.forEach((x, i) => {
      const px = 4 + (cv.width - 8) * (x - x0) / (x1 - x0), py = cv.height - 4 - (cv.height - 8) * (p.y[i] - y0) / (y1 - y0);
      i ? g.lineTo(px, py) : g.moveTo(px, py);
    });
    g.stroke();
    g.fillStyle = "#888"; g.font = "10px sans-serif";
    g.fillText(y1.toPrecision(3), 2, 10); g.fillText(y0.toPrecision(3), 2, cv.height - 2);
  }
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  function state() {
    const v = model.get("view") || {};
    $(".ks-title").textContent = model.get("title");
    const status = model.get("status");
    $(".ks-status").textContent = status + (v.paused ? " (paused)" : "");
    $(".ks-fields").innerHTML = (v.fields || []).map((f) =>
      "<tr><td>" + esc(f.label) + "</td><td>" + esc(fmt(f)) + "</td></tr>").join("") +
      (v.colorbar ? "<tr><td>range</td><td>" + esc(fmt({ value: v.colorbar.lo })) + " .. " + esc(fmt({ value: v.colorbar.hi })) + "</td></tr>" : "");
    const st = v.stages || [];
    $(".ks-stages").innerHTML = st.length ? "<tr><th>stage</th><th>median ms</th><th>min ms</th></tr>" + st.map((s) =>
      "<tr><td>" + esc(s.name) + "</td><td>" + s.median_ms.toFixed(3) + "</td><td>" + s.min_ms.toFixed(3) + "</td></tr>").join("") : "";
    plot(v.plot);
    $(".ks-log").textContent = model.get("log");
    $(".ks-log").style.display = model.get("log") ? "" : "none";
  }
  model.on("change:view", state);
  model.on("change:status", state);
  model.on("change:log", state);
  model.on("change:title", state);
  state();

  el.addEventListener("keydown", (ev) => {   /* the page's keys, by the page's names */
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    let name = NAMED[ev.key];
    if (!name && /^[a-zA-Z0-9]$/.test(ev.key)) name = ev.key.toLowerCase();
    if (!name) return;
    ev.preventDefault();
    ev.stopPropagation();
    model.send({ type: "key", key: name });
  });
  pic.addEventListener("click", () => el.focus());
  model.send({ type: "hello" });   /* a new view: the newest picture again */
}
export default { render };
"""

_CSS = """
.kernelscope-widget { font: 12px sans-serif; outline: none; border: 1px solid transparent; padding: 2px; }
.kernelscope-widget:focus { border-color: #4a90d9; }
.kernelscope-widget .ks-body { display: flex; gap: 10px; align-items: flex-start; flex-wrap: wrap; }
.kernelscope-widget .ks-pic { max-width: min(100%, 720px); height: auto; image-rendering: pixelated; background: #111; }
.kernelscope-widget .ks-side { min-width: 240px; }
.kernelscope-widget table { border-collapse: collapse; margin-bottom: 6px; }
.kernelscope-widget td, .kernelscope-widget th { padding: 1px 6px 1px 0; text-align: left; }
.kernelscope-widget .ks-plot-title { color: #888; }
.kernelscope-widget .ks-log { max-height: 12em; overflow: auto; font-size: 11px; margin: 4px 0 0; }
"""

_widget_class = None


def have_widget():
    """Whether anywidget can be imported (the widget's one dependency)."""
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False
    return True


def _make_widget(**traits):
    global _widget_class
    if _widget_class is None:
        import anywidget
        import traitlets

        class KernelscopeWidget(anywidget.AnyWidget):
            """The live view: pictures as binary messages, the page's state as the view trait."""
            _esm = _ESM
            _css = _CSS
            title = traitlets.Unicode("kernelscope").tag(sync=True)
            status = traitlets.Unicode("").tag(sync=True)
            view = traitlets.Dict().tag(sync=True)
            log = traitlets.Unicode("").tag(sync=True)

        _widget_class = KernelscopeWidget
    return _widget_class(**traits)


# ---- keys while a cell runs: ipykernel 7's subshells -------------------------------------------

_subshell = {"id": None, "tried": False}


def _key_subshell():
    """A subshell of this kernel (ipykernel 7): a thread with its own event loop that takes the
    widget's messages while the main thread runs a cell. None where the kernel has none."""
    if _subshell["tried"]:
        return _subshell["id"]
    _subshell["tried"] = True
    try:
        from ipykernel.kernelbase import Kernel
        if not Kernel.initialized():
            return None
        kernel = Kernel.instance()
        thread = getattr(kernel, "shell_channel_thread", None)
        if not getattr(kernel, "_supports_kernel_subshells", False) or thread is None:
            return None
        manager = thread.manager  # made on the main thread
        made, box = threading.Event(), {}

        def create():  # subshells are made on the shell channel's thread
            try:
                box["id"] = manager._create_subshell()
            except Exception as e:  # an ipykernel whose internals differ: keys wait for the cell's end
                box["error"] = e
            finally:
                made.set()

        thread.io_loop.add_callback(create)
        if made.wait(10):
            _subshell["id"] = box.get("id")
    except Exception:
        _subshell["id"] = None
    return _subshell["id"]


def _route_keys(widget):
    """ipykernel 7 hands a comm's messages to the subshell comm._reply_subshell_for names: ours."""
    comm = getattr(widget, "comm", None)
    sid = _key_subshell()
    if comm is None or sid is None or not hasattr(comm, "_reply_subshell_for"):
        return False
    comm._reply_subshell_for = lambda data, default: sid
    return True


# ---- the relay: a kernelscope page on loopback -> the widget ---------------------------------

def _view_of(state):
    """What the widget shows of /state.json: the view's numbers, stages, plot and colour range."""
    v = state.get("view") or {}
    keep = {k: v.get(k) for k in ("frame", "paused", "fields", "stages", "plot", "message")}
    cb = v.get("colorbar") or {}
    if cb.get("lo") is not None:
        keep["colorbar"] = {"lo": cb.get("lo"), "hi": cb.get("hi"), "label": cb.get("label", "")}
    return keep


class Live:
    """A widget showing the kernelscope page at url (a viewer's or the app's, on this machine),
    through this kernel: frames at most max_fps a second, the newest one always sent."""

    def __init__(self, url, title="kernelscope", max_fps=60):
        parts = urllib.parse.urlsplit(url)
        self.url = url
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]
        self.widget = _make_widget(title=title, status="connecting to %s:%d" % (self.host, self.port))
        self.keys_routed = _route_keys(self.widget)
        self.widget.on_msg(self._message)
        self.frames_sent = 0
        self._period = 1.0 / max_fps if max_fps > 0 else 0.0
        self._stop = threading.Event()
        self._running = threading.Event()  # cleared by pause()
        self._running.set()
        self._lock = threading.Condition()
        self._newest = None  # a picture read, not yet sent
        self._last = None  # the last one sent (again to a new view)
        self._conn = None
        self._log = []
        self._threads = [threading.Thread(target=f, name="kernelscope-" + f.__name__.strip("_"), daemon=True)
                         for f in (self._read_frames, self._send_frames, self._read_state)]
        for t in self._threads:
            t.start()

    def _path(self, route, **args):
        if self.token:
            args["token"] = self.token
        return route + ("?" + urllib.parse.urlencode(args) if args else "")

    def _message(self, widget, content, buffers):
        if not isinstance(content, dict):
            return
        if content.get("type") == "key" and isinstance(content.get("key"), str):
            self.press(content["key"])
        elif content.get("type") == "hello":
            with self._lock:
                if self._newest is None and self._last is not None:
                    self._newest = self._last
                    self._lock.notify_all()

    def press(self, name):
        """A key to the run, as the page sends it (its name: "space", "r", "left")."""
        try:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=5)
            conn.request("POST", self._path("/key", k=name), body=b"", headers={"Content-Length": "0"})
            r = conn.getresponse()
            r.read()
            conn.close()
            if r.status >= 300:
                self.note("key %s: the run answered %d" % (name, r.status))
        except OSError as e:
            self.note("key %s: %s" % (name, e))

    def note(self, line):
        """One more line under the picture (the last 40 are kept)."""
        self._log = (self._log + [line.rstrip("\n")])[-40:]
        self.widget.log = "\n".join(self._log)

    def _read_frames(self):
        """/stream.mjpg: multipart JPEG parts, each with its Content-Length; the newest kept."""
        while not self._stop.is_set():
            self._running.wait()
            if self._stop.is_set():
                return
            try:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=None)
                self._conn = conn
                conn.request("GET", self._path("/stream.mjpg"))
                r = conn.getresponse()
                if r.status != 200:
                    self.widget.status = "the page answered %d" % r.status
                    return
                self.widget.status = "live"
                while not self._stop.is_set() and self._running.is_set():
                    length = None
                    while True:  # a boundary line, then headers up to a blank line
                        line = r.readline()
                        if not line:
                            raise ConnectionError("the stream ended")
                        line = line.strip()
                        if not line and length is not None:
                            break
                        if line.lower().startswith(b"content-length:"):
                            length = int(line.split(b":", 1)[1])
                    jpeg = r.read(length)
                    if len(jpeg) != length:
                        raise ConnectionError("the stream ended")
                    with self._lock:
                        self._newest = jpeg
                        self._lock.notify_all()
            except (OSError, ValueError, http.client.HTTPException):
                if self._stop.is_set():
                    return
                if not self._running.is_set():
                    continue
                if not self._alive():
                    self._ended()
                    return
                self._stop.wait(0.2)  # the page restarts its stream (a new picture size): read it again

    def _send_frames(self):
        last_at = 0.0
        while True:
            with self._lock:
                while self._newest is None and not self._stop.is_set():
                    self._lock.wait()
                if self._stop.is_set():
                    return
                jpeg, self._newest = self._newest, None
            self.widget.send({"type": "frame"}, buffers=[jpeg])
            self._last = jpeg
            self.frames_sent += 1
            wait = last_at + self._period - time.monotonic()
            if wait > 0:
                self._stop.wait(wait)
            last_at = time.monotonic()

    def _read_state(self):
        conn, seen = None, None
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
                conn.request("GET", self._path("/state.json"))
                r = conn.getresponse()
                body = r.read()
                if r.status == 200:
                    view = _view_of(json.loads(body))
                    if view != seen:
                        seen = view
                        self.widget.view = view
            except (OSError, ValueError, http.client.HTTPException):
                if conn is not None:
                    conn.close()
                conn = None
                if not self._alive():
                    self._ended()
                    return
            self._stop.wait(0.25)

    def _alive(self):
        try:
            socket.create_connection((self.host, self.port), timeout=2).close()
            return True
        except OSError:
            return False

    def _ended(self):
        if not self._stop.is_set():
            self.widget.status = "ended (the run is over; the last picture stays)"
        self._stop.set()
        with self._lock:
            self._lock.notify_all()

    def pause(self):
        """No pictures until resume() (the page's stream closed meanwhile)."""
        self._running.clear()
        self.widget.status = "paused by the program"
        self._hang_up()

    def resume(self):
        self._running.set()

    def stop(self, status="closed"):
        """Ends the relay (the widget keeps its last picture)."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._running.set()
        self.widget.status = status
        with self._lock:
            self._lock.notify_all()
        self._hang_up()

    def _hang_up(self):
        conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


# ---- where the widget cannot run: the page itself --------------------------------------------

def in_colab():
    return "google.colab" in sys.modules


def page_fallback(url, why):
    """The page instead of the widget: in Colab through its proxy for a kernel's port, elsewhere a
    link (reachable where the browser is on this machine) and what the widget needs."""
    parts = urllib.parse.urlsplit(url)
    if in_colab():
        try:
            from google.colab import output
            path = "/" + ("?" + parts.query if parts.query else "")
            output.serve_kernel_port_as_iframe(parts.port, path=path, height=720)
            return None
        except Exception as e:  # an older Colab: the link below
            why += " (Colab's port proxy failed: %s)" % e
    text = "kernelscope: %s; the page: %s" % (why, url)
    return {"text/plain": text,
            "text/html": "<p>kernelscope: %s; the page: <a href=\"%s\" target=\"_blank\">%s</a></p>"
                         % (html.escape(why), html.escape(url, quote=True), html.escape(url))}


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
