#!/usr/bin/env python3
"""The --serve page's layout, checked through its own DOM in headless Chromium.

A CPU-backend laplace3d run serves the page; Chromium (driven over
--remote-debugging-pipe, the DevTools protocol on fds 3 and 4) opens it at
1280x800, 1920x1080 and 390x844 (a phone). At each size the test waits, with
a bounded deadline, until the page says it is ready (a picture drawn, the
socket connected, convergence points plotted, the colour bar's gradient
drawn), then checks from the DOM:
  - the picture is fitted inside its stage and no panel, line or text lies
    over it;
  - no two boxes overlap: the page's regions (panels, picture, status line),
    and every text run, button, select and canvas (each clipped to the
    scrolling boxes around it, so a cut-off label shows up as an overlap);
  - nothing sticks out sideways (no horizontal scroll);
  - the convergence plot has points and pixels in the line colour;
  - the colour bar shows a gradient (many colours along its strip) and its
    title names the colormap once;
  - the Hardware panel, after K (sent to /key), says why there are no
    counters on the CPU backend, and the timeline strip (--timeline) under the
    picture says why it has no samples: both laid out like the rest.
Every wait polls the page's state; no step relies on a fixed sleep.
Skipped (77) without Chromium.

Usage: serve_layout.py KERNELSCOPE [--scene NAME] [--shots DIR] [--min-points N] [--timeout SECONDS]
  --shots DIR   also save page_WxH.png at each size into DIR
"""
import argparse
import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

SIZES = [(1280, 800), (1920, 1080), (390, 844)]
TOKEN = "layout-test-token"

# Evaluated in the page: is it ready to be judged? (one object back, every part named)
READY_JS = r"""
(() => {
  const $ = (id) => document.getElementById(id);
  const pic = $("pic"), plot = $("plot"), bar = $("bar");
  return {
    picture: pic.width > 16 && pic.height > 16,
    /* a scene without a plot or a colour bar (the state has come, the canvas stays hidden) is not waited for */
    has_plot: getComputedStyle(plot).display !== "none",
    has_bar: getComputedStyle(bar).display !== "none",
    connected: $("conn").textContent === "connected",
    panels: document.querySelectorAll("#left h2").length > 0,
    plot_points: +(plot.dataset.points || 0),
    bar_stops: +(bar.dataset.stops || 0),
    /* K was pressed: the panel's answer, and the strip of --timeline */
    hardware: $("hw").textContent.includes("no counters: the CPU backend"),
    strip: getComputedStyle($("strip")).display !== "none",
  };
})()
"""

# Evaluated in the page: the layout checks; returns {problems: [...], facts: {...}}
CHECK_JS = r"""
(() => {
  const $ = (id) => document.getElementById(id);
  const problems = [];
  const R = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
  const inter = (a, b) => ({ l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) });
  const overlaps = (a, b) => { const i = inter(a, b); return i.r - i.l > 1 && i.b - i.t > 1; }; /* 1 px of slack */
  const empty = (a) => a.r - a.l <= 0.5 || a.b - a.t <= 0.5;
  const fmt = (a) => `[${a.l.toFixed(0)},${a.t.toFixed(0)} .. ${a.r.toFixed(0)},${a.b.toFixed(0)}]`;
  const shown = (e) => e.checkVisibility ? e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
    : getComputedStyle(e).display !== "none";
  /* what of a box can be seen: clipped by every scrolling or clipping box around it */
  const clip = (el, r) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (cs.overflowX !== "visible" || cs.overflowY !== "visible") r = inter(r, R(p.getBoundingClientRect()));
    }
    return r;
  };
  const vw = document.documentElement.clientWidth;

  /* the regions of the page */
  const stage = $("stage"), pic = $("pic");
  const stageBox = R(stage.getBoundingClientRect()), picFull = R(pic.getBoundingClientRect());
  const picBox = inter(picFull, stageBox);
  if (empty(picBox)) problems.push("the picture is not visible");
  if (picFull.l < stageBox.l - 1 || picFull.t < stageBox.t - 1 || picFull.r > stageBox.r + 1 || picFull.b > stageBox.b + 1)
    problems.push(`the fitted picture ${fmt(picFull)} is cut by its stage ${fmt(stageBox)}`);
  if (picBox.r - picBox.l < 0.5 * (stageBox.r - stageBox.l) && picBox.b - picBox.t < 0.5 * (stageBox.b - stageBox.t))
    problems.push(`the picture ${fmt(picBox)} uses less than half of its stage ${fmt(stageBox)}`);
  const regions = [["stage", stage], ["left panel", $("left")], ["right panel", $("right")], ["status line", $("foot")],
    ["help", $("help")], ["connection", $("conn")], ["message", $("msg")], ["hover", $("hover")]]
    .filter(([, e]) => e && shown(e)).map(([n, e]) => [n, R(e.getBoundingClientRect()), e]);
  for (let i = 0; i < regions.length; i++) {
    const [n, a, ea] = regions[i];
    if (a.l < -1 || a.r > vw + 1) problems.push(`${n} ${fmt(a)} sticks out of the ${vw} px wide window`);
    for (let j = i + 1; j < regions.length; j++) {
      const [m, b, eb] = regions[j];
      if (!ea.contains(eb) && !eb.contains(ea) && overlaps(a, b)) problems.push(`${n} ${fmt(a)} overlaps ${m} ${fmt(b)}`);
    }
  }
  if (document.documentElement.scrollWidth > vw + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in ${vw})`);

  /* the leaves: every text run, button, select and canvas but the picture */
  const leaves = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const el = t.parentElement;
    if (!t.textContent.trim() || el.closest("button, select, script, style, #selftest") || !shown(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    for (const r of range.getClientRects()) {
      const c = clip(el, R(r));
      if (!empty(c)) leaves.push({ what: `"${t.textContent.trim().slice(0, 30)}"`, el, box: c });
    }
  }
  for (const el of document.querySelectorAll("button, select, canvas")) {
    if (el === pic || !shown(el)) continue;
    const c = clip(el, R(el.getBoundingClientRect()));
    if (!empty(c)) leaves.push({ what: `<${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.textContent ? " " + el.textContent.trim().slice(0, 12) : ""}>`, el, box: c });
  }
  for (let i = 0; i < leaves.length; i++) {
    const a = leaves[i];
    if (overlaps(a.box, picBox)) problems.push(`${a.what} ${fmt(a.box)} lies over the picture ${fmt(picBox)}`);
    for (let j = i + 1; j < leaves.length; j++) {
      const b = leaves[j];
      if (a.el.contains(b.el) || b.el.contains(a.el)) { if (a.el === b.el) continue; }
      if (overlaps(a.box, b.box)) problems.push(`${a.what} ${fmt(a.box)} overlaps ${b.what} ${fmt(b.box)}`);
    }
  }

  /* the convergence plot: points, and pixels in the line colour */
  const plot = $("plot"), bar = $("bar");
  const hasPlot = shown(plot) && plot.width > 0 && plot.height > 0, hasBar = shown(bar) && bar.width > 0 && bar.height > 0;
  let blue = 0;
  if (hasPlot) {
    const pd = plot.getContext("2d").getImageData(0, 0, plot.width, plot.height).data;
    for (let i = 0; i < pd.length; i += 4) if (pd[i + 2] > 200 && pd[i] < 160 && pd[i + 3] > 200) blue++;
  }
  if (hasPlot && +(plot.dataset.points || 0) < 1) problems.push("the convergence plot drew no points");
  if (hasPlot && blue < 20) problems.push(`the convergence plot has ${blue} pixels in the line colour`);

  /* the colour bar: a gradient along its strip (21 px above its bottom), the colormap named once */
  const colours = new Set();
  if (hasBar) {
    const br = bar.getBoundingClientRect(), y = Math.round((br.height - 21) * bar.height / br.height);
    const row = bar.getContext("2d").getImageData(0, y, bar.width, 1).data;
    for (let x = 2; x < bar.width - 2; x++) colours.add(`${row[4 * x]},${row[4 * x + 1]},${row[4 * x + 2]}`);
  }
  if (hasBar && colours.size < 16) problems.push(`the colour bar's strip has ${colours.size} colours (no gradient)`);
  /* the Hardware panel (K was pressed) and the timeline strip (--timeline): present, saying why on the CPU */
  const hw = ($("hw") || { textContent: "" }).textContent;
  if (!hw.includes("no counters: the CPU backend runs no GPU kernels")) problems.push(`the Hardware panel says "${hw.slice(0, 80)}"`);
  const strip = $("strip");
  if (!strip || !shown(strip)) problems.push("no timeline strip under the picture");
  const title = ($("bar-title") || { textContent: "" }).textContent.toLowerCase();
  for (const m of ["viridis", "inferno", "turbo", "gray"]) {
    const n = title.split(m).length - 1;
    if (n > 1) problems.push(`the colour bar's title "${title}" names ${m} ${n} times`);
  }
  return { problems, facts: { window: `${innerWidth}x${innerHeight}`, picture: fmt(picBox), leaves: leaves.length,
    plot_points: +plot.dataset.points, plot_pixels: blue, bar_colours: colours.size, bar_title: title } };
})()
"""


class Pipe:
    """The DevTools protocol over Chromium's --remote-debugging-pipe: JSON messages ended by NUL."""

    def __init__(self, wfd, rfd):
        self.wfd, self.rfd, self.buf, self.next_id = wfd, rfd, b"", 1

    def call(self, method, params=None, session=None, timeout=60.0):
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.next_id += 1
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == msg["id"]:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{method}: no answer in {timeout:.0f} s")
            ready, _, _ = select.select([self.rfd], [], [], left)
            if ready:
                chunk = os.read(self.rfd, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"{method}: the browser closed its pipe")
                self.buf += chunk


def evaluate(pipe, session, expr):
    r = pipe.call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session)
    if "exceptionDetails" in r:
        raise RuntimeError("page script failed: " + json.dumps(r["exceptionDetails"])[:400])
    return r["result"].get("value")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernelscope")
    ap.add_argument("--shots", help="save page_WxH.png at each size into this folder")
    ap.add_argument("--scene", default="laplace3d", help="the scene to serve (its plot and colour bar are checked where it has them)")
    ap.add_argument("--min-points", type=int, default=2,
                    help="convergence points the plot must show before the page is judged (more for screenshots)")
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds each wait may take (a loaded machine is slow)")
    a = ap.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not browser:
        print("skipped: no chromium")
        return 77
    tmp = tempfile.mkdtemp(prefix="ks_layout.", dir=os.environ.get("TMPDIR", "/tmp"))
    procs = []
    ok = False
    try:
        log_path = os.path.join(tmp, "run.log")
        with open(log_path, "wb") as log:
            run = subprocess.Popen([a.kernelscope, a.scene, "--backend", "cpu", "--headless", "--frames", "100000",
                                    "--serve", "127.0.0.1:0", "--token", TOKEN, "--timeline"], stdout=log,
                                   stderr=subprocess.STDOUT)
        procs.append(run)
        url, deadline = None, time.monotonic() + a.timeout
        while not url and time.monotonic() < deadline and run.poll() is None:  # the program's own line names the URL
            m = re.search(r"http://\S+", open(log_path, errors="replace").read())
            url = m.group(0) if m else None
            if not url:
                time.sleep(0.1)
        if not url:
            print("FAIL: no URL printed\n" + open(log_path, errors="replace").read())
            return 1
        # K: measure the running kernel (on the CPU backend the panel says why there are none)
        base = url.split("?")[0]
        urllib.request.urlopen(urllib.request.Request(f"{base}key?k=k&token={TOKEN}", data=b"", method="POST"),
                               timeout=a.timeout).read()

        # fd 3: commands to the browser; fd 4: its answers
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()

        def fds():  # moved above 4 first: a pipe end may itself be fd 3 or 4
            r, w = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.close(r)
            os.close(w)

        blog = open(os.path.join(tmp, "browser.log"), "wb")
        chrome = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                   "--user-data-dir=" + os.path.join(tmp, "profile"),
                                   "--remote-debugging-pipe", "about:blank"],
                                  stdout=blog, stderr=subprocess.STDOUT, close_fds=False, preexec_fn=fds)
        procs.append(chrome)
        os.close(to_r)
        os.close(from_w)
        pipe = Pipe(to_w, from_r)
        target = pipe.call("Target.createTarget", {"url": "about:blank"}, timeout=a.timeout)["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True}, timeout=a.timeout)["sessionId"]
        pipe.call("Runtime.enable", session=session)

        failures = 0
        for w, h in SIZES:
            phone = w < 600
            pipe.call("Emulation.setDeviceMetricsOverride",
                      {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": phone}, session)
            pipe.call("Page.navigate", {"url": url}, session, timeout=a.timeout)
            t0, deadline, ready, result = time.monotonic(), time.monotonic() + a.timeout, None, None
            while time.monotonic() < deadline:  # poll the page's own state until it is ready and the layout holds
                try:
                    ready = evaluate(pipe, session, READY_JS)
                except RuntimeError:
                    ready = None  # the page is still loading
                if ready and ready["picture"] and ready["connected"] and ready["panels"] and ready["hardware"] and \
                        ready["strip"] and \
                        (ready["plot_points"] >= a.min_points or not ready["has_plot"]) and \
                        (ready["bar_stops"] >= 2 or not ready["has_bar"]):
                    result = evaluate(pipe, session, CHECK_JS)
                    if not result["problems"]:
                        break
                time.sleep(0.25)
            name = f"{w}x{h}"
            if a.shots:
                os.makedirs(a.shots, exist_ok=True)
                png = pipe.call("Page.captureScreenshot", {"format": "png"}, session, timeout=a.timeout)["data"]
                with open(os.path.join(a.shots, f"page_{name}.png"), "wb") as f:
                    f.write(base64.b64decode(png))
            if result is None:
                try:  # judge the layout anyway, so the report names every defect at once
                    late = evaluate(pipe, session, CHECK_JS)["problems"]
                except RuntimeError as e:
                    late = [str(e)]
                print(f"FAIL {name}: the page was not ready after {a.timeout:.0f} s: {json.dumps(ready)}; " +
                      "; ".join(late[:12]))
                failures += 1
            elif result["problems"]:
                print(f"FAIL {name}: " + "; ".join(result["problems"][:12]) +
                      (f" (and {len(result['problems']) - 12} more)" if len(result["problems"]) > 12 else ""))
                failures += 1
            else:
                print(f"ok {name} after {time.monotonic() - t0:.1f} s: {json.dumps(result['facts'])}")
        ok = failures == 0
        return 0 if ok else 1
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp} (the scratch of a failed test)")


if __name__ == "__main__":
    sys.exit(main())
