"""A kernelscope.Viewer as a live notebook output, in a real JupyterLab driven by headless Chromium
(through the DevTools protocol, with tornado's WebSocket client, which JupyterLab brings):

  1. a notebook shows a NumPy heat field: its widget draws at least 3 pictures (counted in the page);
  2. a key pressed in the widget comes back from v.poll() in the cell that runs the solver;
  3. the widget's last picture is the viewer page's picture of the same field, byte for byte (read
     from the page's /stream.mjpg), and its canvas shows the field's picture (v.save()'s PNG, within
     what JPEG changes).

Every wait is for the other side's own signal (a file the kernel writes, a count the page shows);
the test's time limit is ctest's. With --fps SECONDS --size N it measures instead: the pictures a
second the widget draws at N x N while the solver runs, and the solver's iterations a second with
the widget live against the same solver whose page is read by another process (as a browser tab
would), in alternating rounds. With --produce RATE as well, precomputed fields are shown RATE times
a second instead of a solver's (the widget's own ceiling), and each show() call is timed.
Run by tests/notebook.sh: python notebook_widget.py CHROMIUM SCRATCH
"""
import argparse
import asyncio
import base64
import glob
import http.client
import json
import os
import secrets
import signal
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import zlib

from tornado.websocket import websocket_connect

WIDGET = ".kernelscope-widget"


def cell(source):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}


def notebook(cells):
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}


SETUP = """\
import json, os, time
import numpy as np
import kernelscope as ks
scratch = %(scratch)r
def signal_file(name, data):  # written whole, then renamed: the test reads it once it exists
    with open(os.path.join(scratch, name + ".tmp"), "w") as f:
        json.dump(data, f)
    os.replace(os.path.join(scratch, name + ".tmp"), os.path.join(scratch, name))
def wait_file(name):
    while not os.path.exists(os.path.join(scratch, name)):
        time.sleep(0.02)
N = %(size)d
u = np.zeros((N, N), np.float32)
u[-1, :] = 1.0
def step(u):
    new = u.copy()
    new[1:-1, 1:-1] = 0.25 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
    return new
v = ks.Viewer(title="heat", colormap="inferno", range=(0.0, 1.0))  # a notebook's viewer: a loopback page
assert v.url.startswith("http://127.0.0.1:"), v.url
v.show(u)
v
"""

# the solver until a key comes back from poll(); then, once the test reads the page, one last field
LOOP = """\
keys, it = [], 0
while not keys and not os.path.exists(os.path.join(scratch, "give-up")):
    with v.stage("jacobi"):
        u = step(u)
    it += 1
    v.show(u)
    v.value("residual", float(np.abs(u).mean()) + 1e-9)
    keys = v.poll()["keys"]
    time.sleep(0.005)
signal_file("keys.json", {"keys": keys, "iterations": it, "url": v.url,
                          "routed": v._live.keys_routed if v._live else None,
                          "sent": v._live.frames_sent if v._live else 0, "answers": v._live.answers if v._live else 0})
wait_file("reading")  # the test has seen keys.json: one last field
final = np.fromfunction(lambda y, x: (x + 2 * y) / (3.0 * N), (N, N), dtype=np.float32)
v.show(final)
print("saved", v.save(os.path.join(scratch, "final.png")))
signal_file("final.json", {"shown": True})
"""

# the rounds both measurements alternate: even ones with the widget live, odd ones with it paused
# while another process reads the page (the viewer's thread encodes for a page either way)
ROUNDS = """\
import subprocess, sys
reader_code = '''
import sys, urllib.request
r = urllib.request.urlopen(sys.argv[1], timeout=60)
while r.read1(1 << 20):
    pass
'''
stream = v.url.split("?")[0] + "stream.mjpg"


def begin_round(r):
    if r %% 2 == 0:
        v._live.resume()
        return True, None
    v._live.pause()
    return False, subprocess.Popen([sys.executable, "-c", reader_code, stream])


def end_round(reader):
    if reader:
        reader.kill(); reader.wait()


"""

# measuring: rounds of the solver with the widget live, and with it paused while another process
# reads the page (the cost show() had before: the viewer's thread encodes for a page either way)
MEASURE = ROUNDS + """\
rounds = []
for r in range(%(rounds)d):
    widget, reader = begin_round(r)
    t0, it, m0 = time.perf_counter(), 0, time.monotonic()
    while time.perf_counter() - t0 < %(seconds)f:
        u = step(u)
        v.show(u)
        v.value("residual", float(it))
        v.poll()
        it += 1
    rounds.append({"widget": widget, "iterations_per_s": it / (time.perf_counter() - t0),
                   "from": m0, "to": time.monotonic()})
    end_round(reader)
v._live.resume()
signal_file("measure.json", {"rounds": rounds, "sent": v._live.frames_sent})
"""


# measuring the widget's ceiling: a producer that costs next to nothing (precomputed fields cycled
# through show() at a requested rate), each show() call timed, in the same alternating rounds
PRODUCE = ROUNDS + """\
yy, xx = np.mgrid[0:N, 0:N].astype(np.float32)
fields = [(0.5 + 0.5 * np.sin(xx / 40.0 + k / 4.0) * np.cos(yy / 60.0 - k / 8.0)).astype(np.float32) for k in range(16)]
rounds = []
for r in range(%(rounds)d):
    widget, reader = begin_round(r)
    calls, m0 = [], time.monotonic()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < %(seconds)f:
        c = time.perf_counter()
        v.show(fields[len(calls) %% len(fields)])
        calls.append(time.perf_counter() - c)
        wait = t0 + len(calls) / %(produce)f - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
    calls.sort()
    rounds.append({"widget": widget, "iterations_per_s": len(calls) / (time.perf_counter() - t0),
                   "from": m0, "to": time.monotonic(), "show_median_ms": 1e3 * calls[len(calls) // 2],
                   "show_p99_ms": 1e3 * calls[min(len(calls) - 1, int(0.99 * len(calls)))]})
    end_round(reader)
v._live.resume()
signal_file("measure.json", {"rounds": rounds, "sent": v._live.frames_sent, "pid": os.getpid(),
                             "threads": {t.native_id: t.name for t in __import__("threading").enumerate()}})
"""


class CDP:
    """The DevTools protocol on one page target."""

    def __init__(self, ws):
        self.ws, self.next_id = ws, 0

    async def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        await self.ws.write_message(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = await self.ws.read_message()
            if msg is None:
                raise RuntimeError("the browser closed the DevTools connection")
            m = json.loads(msg)
            if m.get("id") == my:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    async def eval(self, expression):
        r = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            return None
        return r.get("result", {}).get("value")


def png_rgba(data):
    """An 8-bit RGBA or RGB PNG (what kernelscope writes) as (w, h, RGBA bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h, ch = 8, b"", 0, 0, 4
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            ch = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, out, prev = zlib.decompress(idat), w * ch, bytearray(), bytearray(w * ch)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        for x in range(w):
            out += line[x * ch:x * ch + 3] + b"\xff"
    return w, h, bytes(out)


def start_lab(scratch, env):
    token = secrets.token_hex(16)
    log = open(os.path.join(scratch, "lab.log"), "w")
    lab = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                            "--ServerApp.port=0", "--IdentityProvider.token=" + token, "--allow-root", "--ServerApp.root_dir=" + scratch,
                            "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
                            "--ServerApp.iopub_msg_rate_limit=0"],
                           stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    return lab, token


ERRORS = ("(() => { const e = Array.from(document.querySelectorAll('.jp-OutputArea-output')).find((o) =>"
          " o.innerText.includes('Traceback (most recent call last)'));"
          " return e ? e.innerText.slice(-1500) : ''; })()")


async def wait_for(what, check, procs, every=0.1, cdp=None):
    """Waits until check() gives a true value (returned); fails when one of procs has ended or, with
    cdp, when a cell of the notebook shows an error."""
    while True:
        got = check()
        if asyncio.iscoroutine(got):
            got = await got
        if got:
            return got
        error = await cdp.eval(ERRORS) if cdp is not None else ""
        if error:
            raise SystemExit("FAIL: a cell failed while waiting for %s:\n%s" % (what, error))
        for name, p in procs.items():
            if p.poll() is not None:
                raise SystemExit("FAIL: %s ended (status %d) while waiting for %s" % (name, p.returncode, what))
        await asyncio.sleep(every)


def page_picture(url):
    """The next picture the viewer's page streams (/stream.mjpg), from a connection made now."""
    p = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(p.hostname, p.port, timeout=None)
    conn.request("GET", "/stream.mjpg" + ("?" + p.query if p.query else ""))
    r = conn.getresponse()
    assert r.status == 200, r.status
    return conn, r


def read_part(r):
    length = None
    while True:
        raw = r.readline()
        if not raw:
            raise EOFError("the page's stream ended")
        line = raw.strip()
        if not line and length is not None:
            return r.read(length)
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("browser")
    ap.add_argument("scratch")
    ap.add_argument("--fps", type=float, default=0.0, help="measure for this many seconds a round instead")
    ap.add_argument("--size", type=int, default=96)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--roll", action="store_true", help="measure with a step that only rolls the field")
    ap.add_argument("--produce", type=float, default=0.0,
                    help="measure with precomputed fields shown this many times a second instead of a solver")
    ap.add_argument("--unpaced", action="store_true",
                    help="measure with the relay sending pictures as they come, not as the page draws them")
    a = ap.parse_args()
    scratch = os.path.abspath(a.scratch)
    params = {"scratch": scratch, "size": a.size, "rounds": a.rounds, "seconds": a.fps, "produce": a.produce}
    setup = SETUP % params
    if a.roll:  # a step cheaper than the picture: the widget's own rate, not the solver's, is measured
        setup = setup.replace("\nv = ks.Viewer", "\nu = np.fromfunction(lambda y, x: np.sin(x / 40.0) * np.cos(y / 60.0), (N, N), dtype=np.float32)\n"
                              "def step(u):\n    return np.roll(u, 7, axis=1)\nv = ks.Viewer")
    if a.unpaced:
        setup = setup.replace("\nv\n", "\nv.widget()\nv._live._paced = False\nv\n")
    cells = [cell(setup), cell((PRODUCE if a.produce else MEASURE) % params if a.fps else LOOP)]
    with open(os.path.join(scratch, "widget.ipynb"), "w") as f:
        json.dump(notebook(cells), f)
    env = dict(os.environ)
    lab, token = start_lab(scratch, env)
    procs = {"jupyter lab": lab}
    browser = None
    try:
        runtime = env["JUPYTER_RUNTIME_DIR"]
        info_files = await wait_for("jupyter lab's runtime file", lambda: glob.glob(os.path.join(runtime, "jpserver-*.json")), procs)
        info = await wait_for("its port", lambda: json.load(open(info_files[0])), procs)
        url = "http://127.0.0.1:%d/lab/tree/widget.ipynb?token=%s" % (info["port"], token)
        profile = os.path.join(scratch, "profile")
        browser = subprocess.Popen([a.browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                    "--user-data-dir=" + profile, "--remote-debugging-port=0",
                                    "--window-size=1400,1000", url],
                                   stdout=open(os.path.join(scratch, "browser.log"), "w"), stderr=subprocess.STDOUT,
                                   start_new_session=True)
        procs["chromium"] = browser
        port_file = os.path.join(profile, "DevToolsActivePort")
        await wait_for("Chromium's DevTools port", lambda: os.path.exists(port_file) and open(port_file).read().split(),
                       procs)
        dev_port = int(open(port_file).read().split()[0])

        def page_target():
            try:
                c = http.client.HTTPConnection("127.0.0.1", dev_port, timeout=5)
                c.request("GET", "/json/list")
                targets = json.loads(c.getresponse().read())
            except OSError:
                return None
            return next((t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page" and "/lab" in t["url"]), None)

        ws_url = await wait_for("the JupyterLab tab", page_target, procs)
        cdp = CDP(await websocket_connect(ws_url, max_message_size=64 << 20))
        ready = ("(() => { const w = window.jupyterapp && jupyterapp.shell.currentWidget;"
                 " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
                 " return !!(k && k.connectionStatus === 'connected' && k.status === 'idle'); })()")
        await wait_for("the notebook and its kernel", lambda: cdp.eval(ready), procs, every=0.25)
        # not awaited: the command's promise ends with the last cell, which runs until the key comes
        await cdp.eval("jupyterapp.commands.execute('notebook:run-all-cells'), true")
        frames = "(() => { const e = document.querySelector('%s'); return e ? +e.dataset.frames : 0; })()" % WIDGET
        if a.fps:
            return await measure(a, cdp, frames, scratch, procs)
        n = await wait_for("3 pictures drawn in the widget", lambda: cdp.eval(frames + " >= 3 && " + frames), procs,
                           cdp=cdp)
        print("ok: the widget drew %d pictures" % n)

        # 2. a key pressed in the widget, back from poll()
        await cdp.eval("document.querySelector('%s').focus(), true" % WIDGET)
        for kind in ("keyDown", "keyUp"):
            await cdp.call("Input.dispatchKeyEvent", type=kind, key="k", code="KeyK", text="k" if kind == "keyDown" else "",
                           windowsVirtualKeyCode=75, nativeVirtualKeyCode=75)
        keys_file = os.path.join(scratch, "keys.json")
        await wait_for("the key back from poll() (keys.json)", lambda: os.path.exists(keys_file), procs, cdp=cdp)
        got = json.load(open(keys_file))
        if got["keys"] != ["k"]:
            raise SystemExit("FAIL: poll() gave keys %r, not ['k']" % got["keys"])
        print("ok: K pressed in the widget came back from poll() after %d iterations (ipykernel subshell: %s)"
              % (got["iterations"], got["routed"]))
        # each message from the page makes the kernel report busy and idle, which JupyterLab redraws:
        # the page answers many pictures at once
        if got["routed"] and got["answers"] > max(1, got["sent"] // 4):
            raise SystemExit("FAIL: the page answered %d times for %d pictures (one answer per picture halves the rate)"
                             % (got["answers"], got["sent"]))
        print("ok: the page answered %d times for %d pictures sent" % (got["answers"], got["sent"]))

        # 3. the last field: the widget's picture and the page's (the page's newest picture, read from
        # a connection made once the field is drawn; it gets the newest picture encoded, then each new one)
        open(os.path.join(scratch, "reading"), "w").close()
        await wait_for("the last field drawn (final.json)", lambda: os.path.exists(os.path.join(scratch, "final.json")), procs)
        conn, r = page_picture(got["url"])
        parts = []
        def read_parts():
            try:
                while True:
                    parts.append(read_part(r))
            except (OSError, EOFError, ValueError):
                pass
        threading.Thread(target=read_parts, daemon=True).start()
        last = "document.querySelector('%s').kernelscopeLastFrame()" % WIDGET

        async def same():
            if not parts:
                return False
            return await cdp.eval(last) == base64.b64encode(parts[-1]).decode()
        try:
            await asyncio.wait_for(wait_for("the page's picture in the widget", same, procs), 60)
        except asyncio.TimeoutError:
            have = await cdp.eval(last)
            raise SystemExit("FAIL: the widget's last picture (%d bytes) is not the page's (%s bytes)"
                             % (len(base64.b64decode(have or "")), [len(p) for p in parts]))
        page_jpeg = parts[-1]
        conn.close()
        print("ok: the widget's picture is the page's, byte for byte (%d bytes of JPEG)" % len(page_jpeg))
        pixels = await cdp.eval("(() => { const c = document.querySelector('%s .ks-pic');"
                                " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                                " let s = ''; for (let i = 0; i < d.length; i += 0x8000)"
                                " s += String.fromCharCode.apply(null, d.subarray(i, i + 0x8000));"
                                " return [c.width, c.height, btoa(s)]; })()" % WIDGET)
        w, h, rgba = png_rgba(open(os.path.join(scratch, "final.png"), "rb").read())
        if pixels[:2] != [w, h]:
            raise SystemExit("FAIL: the widget's canvas is %dx%d, the picture %dx%d" % (pixels[0], pixels[1], w, h))
        drawn = base64.b64decode(pixels[2])
        diffs = [abs(x - y) for i, (x, y) in enumerate(zip(drawn, rgba)) if i % 4 != 3]
        mean = sum(diffs) / len(diffs)
        if mean > 4.0:
            raise SystemExit("FAIL: the widget's canvas differs from the field's picture: mean %.2f, max %d (of 255)"
                             % (mean, max(diffs)))
        print("ok: the canvas shows the field's %dx%d picture (mean difference %.2f of 255, max %d: JPEG's)"
              % (w, h, mean, max(diffs)))
    finally:
        open(os.path.join(scratch, "give-up"), "w").close()
        for p in (browser, lab):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()


async def measure(a, cdp, frames, scratch, procs):
    await wait_for("the first picture", lambda: cdp.eval(frames), procs)
    done = os.path.join(scratch, "measure.json")
    samples = []
    while not os.path.exists(done):  # the widget's count twice a second, while the rounds run
        samples.append((time.monotonic(), await cdp.eval(frames)))
        await asyncio.sleep(0.5)
        if lab_ended(procs):
            raise SystemExit("FAIL: jupyter lab ended")
    m = json.load(open(done))
    rounds = m["rounds"]
    # pictures a second in the widget's rounds: the count's rise over the samples inside each round
    # (its times are the kernel's time.monotonic(), the same clock as this process's), its first
    # second left out (the relay resumes)
    rates = []
    for r in rounds:
        if not r["widget"]:
            continue
        inside = [(t, n) for t, n in samples if r["from"] + 1 <= t <= r["to"]]
        if len(inside) >= 2:
            rates.append((inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]))
    with_w = [r["iterations_per_s"] for r in rounds if r["widget"]]
    without = [r["iterations_per_s"] for r in rounds if not r["widget"]]
    what = "shows" if a.produce else "solver iterations"
    print("measure: %dx%d, %d rounds of %.0f s%s" % (a.size, a.size, len(rounds), a.fps,
                                                     ", %g shows a second asked for" % a.produce if a.produce else ""))
    print("measure: widget pictures a second (drawn in the page): %s" % ", ".join("%.1f" % x for x in rates))
    print("measure: %s a second with the widget: %s" % (what, ", ".join("%.2f" % x for x in with_w)))
    print("measure: with the page read by another process instead: %s" % ", ".join("%.2f" % x for x in without))
    if a.produce:
        for live in (True, False):
            print("measure: show() median, p99 (ms) %s: %s" % (
                "with the widget" if live else "with the page read instead",
                "; ".join("%.2f, %.2f" % (r["show_median_ms"], r["show_p99_ms"]) for r in rounds if r["widget"] == live)))
    elif with_w and without:
        mw, mo = sorted(with_w)[len(with_w) // 2], sorted(without)[len(without) // 2]
        print("measure: medians %.2f vs %.2f: the widget costs %.2f %%" % (mw, mo, 100.0 * (mo - mw) / mo))


def lab_ended(procs):
    return any(p.poll() is not None for p in procs.values())


if __name__ == "__main__":
    asyncio.run(main())
