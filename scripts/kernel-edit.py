#!/usr/bin/env python3
"""--edit end to end on a CUDA machine: a live headless run of SCENE with a
starter kernel file, served with --edit; this script is the page. It reads
the editor's document (GET /kernel), sends a changed source (POST /kernel)
and waits until the run says the new build runs, then sends a source with an
error and waits for its refusal with a file:line log line, then stops the run
with SIGINT and checks its summary. In matmul and histogram it also presses
D (the difference view) and reads the page's state: the running build equals
ours, then a wrong build (C's last column left unwritten; the byte 'e' never
counted) is refused and its difference names what it got wrong. Prints one
line a step;
exit 1 on the first that fails.

  scripts/kernel-edit.py --bin build/kernelscope --scene matmul
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from stderr_lines import StderrLines

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.environ.get("KS_BINARY", "kernelscope"))
ap.add_argument("--scene", default="matmul")
ap.add_argument("--timeout", type=float, default=60.0)
ap.add_argument("--shot", help="a folder: the difference view of the wrong build saved there (F) as SCENE_diff.png")
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="ks_edit.")
src = os.path.join(work, "mine.cu")
subprocess.run([args.bin, "new-kernel", args.scene, "-o", src], check=True, stdout=subprocess.DEVNULL)
shots = os.path.join(work, "shots")
proc = subprocess.Popen([args.bin, args.scene, "--headless", "--frames", "100000000", "--kernel-file", src,
                         "--serve", "127.0.0.1:0", "--edit", "--out", shots],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def fail(why):
    said = out.all_said()
    if any("needs a CUDA device" in l or "no CUDA device" in l for l in said):
        proc.kill()
        print("skipped: no CUDA device here (%s)" % said[-1])
        shutil.rmtree(work, ignore_errors=True)
        sys.exit(77)  # a test of the GPU machines (ctest's label gpu)
    print("\n".join(said[-15:]))
    if proc.poll() is None:
        proc.kill()
    sys.exit("kernel-edit %s: %s (its files kept in %s)" % (args.scene, why, work))


out = StderrLines(proc, args.timeout, fail)


def wait_for(pattern):
    return out.wait_for(pattern, seen=True)


def request(url, body=None):
    req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def document():
    status, text = request(kernel_url)
    if status != 200:
        fail("GET /kernel answered %d: %s" % (status, text[:200]))
    return json.loads(text)


def state_field(label):
    """A field of the page's state document (/state.json), "" when it is not there."""
    status, text = request(base.rstrip("/") + "/state.json" + ("?" + query if query else ""))
    if status != 200:
        fail("GET /state.json answered %d" % status)
    for f in json.loads(text)["view"]["fields"]:
        if f["label"] == label:
            return f["value"]
    return ""


def field_says(label, words):
    """Waits (the run's own state, --timeout at most) until the field holds every one of words."""
    end = time.time() + args.timeout
    while time.time() < end:
        value = state_field(label)
        if all(w in value for w in words):
            return value
        time.sleep(0.05)
    fail("the field %r never said %r (last: %r)" % (label, words, state_field(label)))


def build_after(build):
    """The editor's document once a build newer than build has ended (the run's own signal)."""
    end = time.time() + args.timeout
    while time.time() < end:
        d = document()
        if d["build"] > build and not d["busy"]:
            return d
        time.sleep(0.05)
    fail("no build after build %d within %.0f s" % (build, args.timeout))


wait_for(r"compiled in \d+ ms, checked in \d+ ms")
url = wait_for(r"serving the live view at (\S+)").group(1)
base, _, query = url.partition("?")
kernel_url = base.rstrip("/") + "/kernel" + ("?" + query if query else "")
status, _ = request(base.rstrip("/") + "/kernel")
print("GET /kernel without the token: %d (want 403)" % status)
if status != 403:
    fail("the editor answered without the token")
doc = document()
print("the page's document: %s, %d bytes of source, build %d" % (os.path.basename(doc["file"]), len(doc["source"]),
                                                                 doc["build"]))
t0 = time.time()
status, text = request(kernel_url, ("// edited from the page\n" + doc["source"]).encode())
if status != 202:
    fail("POST /kernel answered %d: %s" % (status, text[:200]))
d = build_after(doc["build"])
ms = (time.time() - t0) * 1e3
print("Compile of a changed source: build %d, %s; the page saw it %.0f ms after the POST (run's save to running %.0f ms)"
      % (d["build"], "refused" if d["refused"] else "runs", ms, d["save_to_running_ms"]))
if d["refused"] or not open(src).read().startswith("// edited from the page"):
    fail("the changed source was refused or not written: %s" % d["line"])
# The difference view (D, pressed on the page as in the window): what the starter's check answered,
# then a wrong kernel (refused) and its difference. Per scene: the reference, the change that makes
# the starter wrong, and the words its difference must bring.
DIFF = {
    "matmul": ("regtile", ("if (i >= M || j >= N) return;", "if (i >= M || j >= N - 1) return;"),
               lambda: ["(refused)", "%d of " % int(state_field("C = A*B").split("x")[0]), "(inf: left unwritten)"]),
    "histogram": ("cub", ("if (i < n) atomicAdd", "if (i < n && data[i] != 'e') atomicAdd"),
                  lambda: ["(refused)", "1 of 256 bins differ"]),
}
if args.scene in DIFF:
    ours, (right, wrong_text), words = DIFF[args.scene]
    status, _ = request(base.rstrip("/") + "/key?k=d" + ("&" + query if query else ""), b"")
    if status != 204:
        fail("POST /key?k=d answered %d" % status)
    print("D: %s" % field_says("difference view", ["equals %s in all" % ours]))
    wrong = doc["source"].replace(right, wrong_text)
    if wrong == doc["source"]:
        fail("the starter's line %r was not found" % right)
    status, text = request(kernel_url, wrong.encode())
    if status != 202:
        fail("POST /kernel (a wrong kernel) answered %d: %s" % (status, text[:200]))
    d = build_after(d["build"])
    if not d["refused"]:
        fail("a wrong kernel was not refused: %s" % d["line"])
    print("D after a wrong build: %s" % field_says("difference view", words()))
    if args.shot:  # F: the picture as drawn, the difference; the file's arrival is the run's signal
        status, _ = request(base.rstrip("/") + "/key?k=f" + ("&" + query if query else ""), b"")
        end = time.time() + args.timeout
        saved = []
        while not saved and time.time() < end:
            saved = [f for f in os.listdir(shots) if f.endswith(".png")] if os.path.isdir(shots) else []
            time.sleep(0.05)
        if not saved:
            fail("F saved no picture in %s" % shots)
        os.makedirs(args.shot, exist_ok=True)
        shutil.copy(os.path.join(shots, saved[0]), os.path.join(args.shot, "%s_diff.png" % args.scene))
        print("the difference view saved as %s" % os.path.join(args.shot, "%s_diff.png" % args.scene))
status, text = request(kernel_url, (doc["source"] + "\nthis is not C++;\n").encode())
if status != 202:
    fail("POST /kernel (a broken source) answered %d: %s" % (status, text[:200]))
d = build_after(d["build"])
logline = next((l for l in d["log"] if re.search(r"mine\.cu:\d+", l)), "")
print("Compile of a broken source: build %d, %s; log: %s" % (d["build"], "refused" if d["refused"] else "runs",
                                                          logline or "(no file:line line)"))
if not d["refused"] or not logline:
    fail("the broken source was not refused with a file:line log line")
proc.send_signal(signal.SIGINT)
try:
    _, err = proc.communicate(timeout=args.timeout)
except subprocess.TimeoutExpired:
    fail("no end within %.0f s of SIGINT" % args.timeout)
out.finish(err.decode(errors="replace"))
if proc.returncode not in (0, 130):
    fail("the run ended with status %d after SIGINT" % proc.returncode)
shutil.rmtree(work, ignore_errors=True)
print("kernel-edit %s: passed; the run kept going and ended on SIGINT with status %d" % (args.scene, proc.returncode))
