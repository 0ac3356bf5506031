"""The notebook widget (anywidget): its page code, which draws the pictures and the view into a
canvas and sends keys back, its class, and the keys it takes while a cell runs (ipykernel 7's
subshells). kernelscope.notebook says how it is fed."""
import threading

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
  let frames = 0, shown = null;
  el.kernelscopeLastFrame = () => (shown ? b64(shown) : "");

  /* Pictures are decoded as they come, up to DECODING at once (Chromium decodes each on a worker;
     one after the other, a 1024² JPEG's decode bounded the rate), and a decoded picture is drawn
     unless a newer one has been drawn already; one more waits, the newest, and an older waiting one
     is dropped: a slow page drops, never queues. */
  const DECODING = 2;
  let arrived = 0, drawnSeq = 0, decoding = 0, waiting = null, unanswered = 0;
  /* Pictures drawn or dropped are answered msg.answer at a time (the relay's ANSWER_EVERY; 0: not
     at all): each message to the kernel makes it report busy and idle, which JupyterLab shows. */
  function handled(m) {
    if (m.answer > 0 && ++unanswered >= m.answer) { model.send({ type: "drawn", count: unanswered }); unanswered = 0; }
  }
  function decode(view, seq, m) {
    decoding++;
    createImageBitmap(new Blob([view], { type: "image/jpeg" })).then((bmp) => {
      if (seq > drawnSeq) {
        if (pic.width !== bmp.width || pic.height !== bmp.height) { pic.width = bmp.width; pic.height = bmp.height; }
        ctx.drawImage(bmp, 0, 0);
        drawnSeq = seq;
        shown = view;
        el.dataset.frames = String(++frames);
      }
      bmp.close();
    }, (e) => { $(".ks-status").textContent = "a picture could not be decoded: " + e; }).finally(() => {
      decoding--;
      handled(m);
      if (waiting) { const w = waiting; waiting = null; decode(...w); }
    });
  }
  model.on("msg:custom", (msg, buffers) => {
    if (msg && msg.type === "frame" && buffers && buffers.length) {
      const next = [buffers[0], ++arrived, msg];
      if (decoding < DECODING) decode(...next);
      else {
        if (waiting) handled(waiting[2]);   /* one not drawn, dropped: answered all the same */
        waiting = next;
      }
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
