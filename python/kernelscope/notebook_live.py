"""The relay from a kernelscope page on loopback to the notebook widget (Live), and the page itself
where the widget cannot run (page_fallback). kernelscope.notebook says how it works."""
import html
import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse

from .notebook_widget import _make_widget, _route_keys

# Pictures sent to the page and not yet drawn there: a page that draws slower than pictures come is
# sent fewer, rather than handed pictures it drops after they have crossed the kernel, the server
# and the WebSocket. The page answers ANSWER_EVERY pictures at a time: each message to the kernel
# makes it report busy and then idle, which JupyterLab redraws (an answer a picture cost the page
# more time than decoding them, and halved its rate). Twice that many unanswered, so that pictures
# keep coming over an answer's round trip; the most a slow link holds (about 2.4 MB at 1024²).
ANSWER_EVERY = 16
IN_FLIGHT = 2 * ANSWER_EVERY  # at least ANSWER_EVERY: the page answers only once it has that many
# A picture not answered in this long: the view that got it has gone (a closed tab); send again.
DRAWN_WAIT_S = 1.0


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
        # the pages' "drawn" answers come while a cell runs only where the widget's messages have a
        # subshell of their own; elsewhere pictures are sent as they come (at most max_fps a second)
        self._paced = self.keys_routed
        self._in_flight = 0
        self._sent_at = 0.0
        self.widget.on_msg(self._message)
        self.frames_sent = 0
        self.answers = 0  # answers from the page (each answers ANSWER_EVERY pictures)
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
        elif content.get("type") == "drawn":
            self.answers += 1
            count = content.get("count", 1)
            if not isinstance(count, int) or count < 1:
                return
            with self._lock:
                self._in_flight = max(0, self._in_flight - count)
                self._lock.notify_all()
        elif content.get("type") == "hello":
            with self._lock:
                self._in_flight = 0  # a new view: what was in flight went to another
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
                while not self._stop.is_set():
                    if self._newest is None:
                        self._lock.wait()
                    elif not self._paced or self._in_flight < IN_FLIGHT:
                        break
                    else:
                        late = self._sent_at + DRAWN_WAIT_S - time.monotonic()
                        if late <= 0:  # no view answered: it has gone
                            self._in_flight = 0
                            break
                        self._lock.wait(late)
                if self._stop.is_set():
                    return
                jpeg, self._newest = self._newest, None
                self._in_flight += 1
                self._sent_at = time.monotonic()
            # the page answers only where the answers can come while a cell runs
            self.widget.send({"type": "frame", "answer": ANSWER_EVERY if self._paced else 0}, buffers=[jpeg])
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
