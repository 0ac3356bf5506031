"""%%kernelscope, the cell that is your kernel, run through nbclient (a real kernel, no browser).

Every path compares the notebook's output with what the program itself prints for the same file
and flags (the magic runs it with the cell as cell.cu, in a folder of its own):
  - a kernel that does not compile: the compile errors, then the run's end (no widget);
  - a kernel that compiles, on a machine without a CUDA device (or a build without CUDA): the
    program's lines, one of them saying what running it needs, and no widget;
  - --bench: the bench's output (and its charts where it ran);
  - where a CUDA device is found (the program runs the kernel headless): the check's line, a
    live widget fed with pictures, and a second run of the edited cell reloaded in the same run.
  - the magic's own usage errors, one line each.
Run by tests/notebook.sh: python notebook_magic.py KERNELSCOPE SCRATCH"""
import os
import re
import subprocess
import sys

import nbclient
import nbformat

binary, scratch = sys.argv[1], os.path.abspath(sys.argv[2])
GRID = ["--grid", "48"]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

subprocess.run([binary, "new-kernel", "laplace3d", "-o", os.path.join(scratch, "good.cu")], check=True,
               stdout=subprocess.DEVNULL)
GOOD = open(os.path.join(scratch, "good.cu")).read()
BAD = GOOD.replace("const size_t sy = nx", "const size_t sy = nx +* oops")  # a syntax error, line known
assert BAD != GOOD
# the same kernel, edited: one more comment line (the reload's build 2)
EDITED = GOOD + "\n// edited in the notebook\n"


def direct(args, source, extra=()):
    """The program's own output for source as cell.cu, run in a folder of its own (as the magic)."""
    folder = os.path.join(scratch, "direct-%d" % len(os.listdir(scratch)))
    os.makedirs(folder)
    with open(os.path.join(folder, "cell.cu"), "w") as f:
        f.write(source)
    r = subprocess.run([binary, *args, "--kernel-file", "cell.cu", *extra], cwd=folder, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=600)
    return r.returncode, [line for line in r.stdout.decode().splitlines() if line.strip()]


def text_of(outputs):
    lines = []
    for o in outputs:
        if o.get("output_type") == "stream":
            lines += o["text"].splitlines()
        elif o.get("output_type") == "error":
            lines += ["ERROR %s: %s" % (o["ename"], o["evalue"])]
    return lines


def has_widget(outputs):
    return any(WIDGET_MIME in o.get("data", {}) for o in outputs)


def pngs(outputs):
    return sum(1 for o in outputs if "image/png" in o.get("data", {}))


def expect_lines(name, got, want_lines):
    missing = [line for line in want_lines if line not in got]
    if missing:
        print("the notebook printed:\n  " + "\n  ".join(got))
        raise SystemExit("FAIL: %s: the notebook's output lacks the program's lines:\n  %s" % (name, "\n  ".join(missing)))


# What the program says by itself: a kernel that does not compile, one that does, the bench.
bad_rc, bad_lines = direct(["laplace3d", *GRID, "--headless", "--frames", "3"], BAD)
good_rc, good_lines = direct(["laplace3d", *GRID, "--headless", "--frames", "3"], GOOD)
bench_rc, bench_lines = direct(["bench", "laplace3d", *GRID], GOOD, ["--out", os.path.join(scratch, "bench-direct")])
assert bad_rc != 0, "a kernel with a syntax error ran: %r" % bad_lines
device = good_rc == 0
print("the program itself: %s (exit %d); the good kernel: exit %d%s" % (
    bad_lines[-1] if bad_lines else "", bad_rc, good_rc, " (a CUDA device: the live path)" if device else ""))
cuda_build = not any("not in this build" in line for line in bad_lines)
if cuda_build:  # NVRTC is in the build: the error names the cell's line
    assert any(line.startswith("cell.cu:") and "error" in line for line in bad_lines), bad_lines

cells = [
    "%load_ext kernelscope",
    "%%kernelscope laplace3d --grid 48\n" + BAD,
    "%%kernelscope laplace3d --grid 48\n" + GOOD,
    "%%kernelscope laplace3d --grid 48 --bench\n" + GOOD,
    "%%kernelscope laplace3d --serve 8090\n" + GOOD,
    "%%kernelscope --grid 48\n" + GOOD,
]
if device:  # the live path: a reload of the edited cell in the same run, then the relay's pictures
    cells += [
        "%%kernelscope laplace3d --grid 48\n" + EDITED,
        "import time, kernelscope.notebook as kn\n"
        "run = kn._magic.runs['laplace3d']\n"
        "while run.live.frames_sent < 3 and run.alive():\n"
        "    time.sleep(0.05)\n"
        "print('frames sent', run.live.frames_sent, 'alive', run.alive(), 'pid', run.proc.pid)\n"
        "kn._magic.stop_all()\n",
    ]
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                                 resources={"metadata": {"path": scratch}})
client.execute()
out = [c.outputs for c in nb.cells]
for i, o in enumerate(out):
    for line in text_of(o):
        if line.startswith("ERROR"):
            raise SystemExit("FAIL: cell %d raised: %s" % (i, line))

# 1. the compile errors, then the end of the run, no widget
expect_lines("a kernel that does not compile", text_of(out[1]), bad_lines)
assert "kernelscope exited with status %d" % bad_rc in text_of(out[1]), text_of(out[1])
assert not has_widget(out[1]), "a widget for a kernel that does not compile"
print("ok: a kernel that does not compile: the program's %d lines, exit %d, no widget" % (len(bad_lines), bad_rc))

if not device:
    # 2. no device: the program's lines (what running it needs), no widget
    expect_lines("no CUDA device", text_of(out[2]), good_lines)
    assert "kernelscope exited with status %d" % good_rc in text_of(out[2]), text_of(out[2])
    assert not has_widget(out[2]), "a widget without a device"
    print("ok: without a CUDA device: %s" % good_lines[-1])
else:
    got = text_of(out[2])
    checked = [line for line in got if line.startswith("kernelscope: cell.cu: compiled in")]
    assert checked, got
    assert has_widget(out[2]), "no widget for the live run"
    print("ok: the live run: %s; a widget" % checked[0])
    got = text_of(out[6])
    # the --bench cell rewrote the same file while the run went on (a build of its own), so the
    # edited cell's build is the second or a later one
    reload = [line for line in got if re.match(r"kernelscope: cell\.cu: build ([2-9]|\d\d+) runs", line)]
    assert reload and has_widget(out[6]), got
    print("ok: the edited cell reloaded in the same run: %s" % reload[0])
    print("ok: %s" % text_of(out[7])[-1])
    assert "frames sent" in text_of(out[7])[-1] and int(text_of(out[7])[-1].split()[2]) >= 3, text_of(out[7])

# 3. --bench: the bench's own output, its charts where it ran
if bench_rc == 0:
    # the bench ran: its figures (times, repetitions, the best row, the results folder) are its own
    # measurement each time, so the lines are compared with the numbers and paths left out
    def shape(lines):
        out = []
        for line in lines:
            row = re.match(r"(\S+)\s+(\d+x\d+x\d+)\s+(\d+x\d+x\d+)\s", line)
            if row:  # a table row: which variant, grid and block it measured
                out.append(" ".join(row.groups()))
                continue
            line = re.sub(r"results go to \S+", "results go to DIR", line)
            line = re.sub(r"wrote \S*/", "wrote ", line)  # the file's name, not its folder
            out.append(" ".join(re.sub(r"\d+(\.\d+)?", "#", line).split()))
        return out
    expect_lines("--bench", shape(text_of(out[3])), shape(bench_lines))
else:
    expect_lines("--bench", text_of(out[3]), bench_lines)
if bench_rc == 0:
    assert pngs(out[3]) >= 1, "the bench ran, and no chart was shown"
else:
    assert "kernelscope bench exited with status %d" % bench_rc in text_of(out[3]), text_of(out[3])
print("ok: --bench: the bench's %d lines, exit %d, %d charts" % (len(bench_lines), bench_rc, pngs(out[3])))

# 4. the magic's own usage errors
assert any("--serve is the magic's own" in line for line in text_of(out[4])), text_of(out[4])
assert any("usage: %%kernelscope SCENE" in line for line in text_of(out[5])), text_of(out[5])
print("ok: the magic's usage errors, one line each")
