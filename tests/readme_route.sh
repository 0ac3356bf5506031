#!/usr/bin/env bash
# The README's "Show your own field" route, command for command, as a newcomer runs it after
# scripts/start.sh (whose build folder is this build's): in a scratch clone with a fresh HOME, the
# library, its pkg-config file and the Python module installed under $HOME/.local, a C program built
# with that pkg-config file and run, then examples/heat_numpy.py in a fresh virtual environment, its
# NumPy field fetched from its page (the state and a picture of the stream), and Ctrl-C. No variable
# tells a program where the library is: they find it where it was installed. Every command run here
# must be a line of README.md (its comment aside), so the two cannot drift apart.
# The environment sees the system's NumPy; pip is kept off the network (PIP_NO_INDEX). No Python whose
# environments see NumPy: skipped (77).
# Usage: readme_route.sh SOURCE_DIR BUILD_DIR [PYTHON]
set -eu
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_readme.XXXXXX")
ok=0 pid=
finish() {
  [ -n "$pid" ] && kill -KILL -- "-$pid" 2>/dev/null
  [ "$ok" = 1 ] && rm -rf "$tmp" || echo "kept $tmp (the scratch of a failed test)"
}
trap finish EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the README's commands, in its order (the C line and the Python lines are two routes from one install)
build_lib='cmake --build build --target kernelscope_lib'
install='cmake --install build --prefix "$HOME/.local"'
c_program='cc app.c $(pkg-config --cflags --libs "$HOME/.local/lib/pkgconfig/kernelscope.pc")'
venv='python3 -m venv --system-site-packages .venv'
pip_install='.venv/bin/pip install "$HOME/.local/share/kernelscope/python"'
example='.venv/bin/python examples/heat_numpy.py'
sed 's/[[:space:]]*#.*$//; s/[[:space:]]*$//' "$src/README.md" >"$tmp/readme-lines"
for c in "$build_lib" "$install" "$c_program" "$venv" "$pip_install" "$example"; do
  grep -qxF -- "$c" "$tmp/readme-lines" || fail "README.md has no line '$c' (this test runs the README's commands)"
done

# python3: the first of PYTHON, python3 and /usr/bin/python3 whose virtual environments see NumPy
# (a Python that is itself a virtual environment hands a new one its base's packages, not its own)
py=""
for p in ${3:-} python3 /usr/bin/python3; do
  command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy, venv" 2>/dev/null || continue
  rm -rf "$tmp/probe"
  if "$p" -m venv --without-pip --system-site-packages "$tmp/probe" >/dev/null 2>&1 &&
     "$tmp/probe/bin/python" -c "import numpy" 2>/dev/null; then
    py=$(command -v "$p")
    break
  fi
done
if [ -z "$py" ]; then
  ok=1
  echo "skipped: no Python whose virtual environments see NumPy (Debian: python3-numpy python3-venv)"
  exit 77
fi
mkdir -p "$tmp/bin" "$tmp/home" "$tmp/clone"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" >"$tmp/bin/python3"
chmod +x "$tmp/bin/python3"

# the clone: its build folder (start.sh's), its examples, and a C program of the user's
ln -s "$build" "$tmp/clone/build"
ln -s "$src/examples" "$tmp/clone/examples"
cp "$src/tests/lib_consumer/consumer.c" "$tmp/clone/app.c"
cd "$tmp/clone"
export HOME="$tmp/home" PATH="$tmp/bin:$PATH" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset KERNELSCOPE_LIBRARY LD_LIBRARY_PATH PKG_CONFIG_PATH PYTHONPATH PYTHONHOME VIRTUAL_ENV

step() { # a README command, its output kept; its failure ends the test with the output
  echo "\$ $1"
  eval "$1" >"$tmp/step.log" 2>&1 || { cat "$tmp/step.log"; fail "the README's '$1'"; }
}
step "$build_lib"
step "$install"
step "$c_program"
rc=0
./a.out "$tmp/c.png" >"$tmp/c.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/c.log"; fail "the C program built with the pkg-config file (exit $rc)"; }
step "$venv"
step "$pip_install"
.venv/bin/python - "$HOME/.local" <<'EOF' || fail "the module as installed"
import importlib.metadata, os, sys
import kernelscope
want = os.path.join(sys.argv[1], "lib", "libkernelscope.so.0")
assert kernelscope.library_path() == want, (kernelscope.library_path(), want)
assert any(r.split(";")[0].strip().startswith("numpy") for r in importlib.metadata.requires("kernelscope")), \
    importlib.metadata.requires("kernelscope")
EOF

# the example, as from a terminal: its own process group (job control on: a background job without it
# would ignore SIGINT), which Ctrl-C signals; exec, so that the group is the example alone
echo "\$ $example"
set -m
eval "exec $example" >"$tmp/example.out" 2>"$tmp/example.err" &
pid=$!
set +m
until grep -q "open http://127.0.0.1:" "$tmp/example.out"; do
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/example.out" "$tmp/example.err"; fail "the example ended before serving"; }
  sleep 0.05
done
url=$(grep -o "http://127.0.0.1:[0-9]*/" "$tmp/example.out" | head -n 1)
# the field on the page: the state names the example and a picture drawn; the stream's first JPEG is
# the 512 x 512 picture of the field (the example's default size)
.venv/bin/python - "$url" <<'EOF' || { cat "$tmp/example.err"; fail "the NumPy field did not reach the page"; }
import json, sys, time, urllib.request
url = sys.argv[1]
while True:  # the state follows the first picture drawn: the page's own answer is the signal
    with urllib.request.urlopen(url + "state.json", timeout=60) as r:
        state = json.loads(r.read().decode())
    if state.get("frame", 0) > 0:
        break
    time.sleep(0.05)
assert state["scene"] == "heat (NumPy)", state["scene"]
with urllib.request.urlopen(url + "stream.mjpg", timeout=60) as r:
    data = b""
    while data.find(b"\xff\xd8") < 0 or len(data) - data.find(b"\xff\xd8") < 4096:  # a JPEG's start
        chunk = r.read1(65536)
        assert chunk, "the stream ended"
        data += chunk
jpeg = data[data.find(b"\xff\xd8"):]
i = 2
while jpeg[i + 1] not in (0xC0, 0xC1, 0xC2):  # segment by segment to the frame header, which has the size
    i += 2 + int.from_bytes(jpeg[i + 2:i + 4], "big")
h, w = int.from_bytes(jpeg[i + 5:i + 7], "big"), int.from_bytes(jpeg[i + 7:i + 9], "big")
assert (w, h) == (512, 512), (w, h)
print("the page: frame %d, a %d x %d picture of the field" % (state["frame"], w, h))
EOF
kill -INT -- "-$pid"
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" = 130 ] && ! grep -q Traceback "$tmp/example.err" ||
  { cat "$tmp/example.out" "$tmp/example.err"; fail "Ctrl-C: exit $rc (want 130, no traceback)"; }
echo "ok: the README's route: installed under \$HOME/.local, a C program and the NumPy example found the library" \
  "with no variable set, the field reached the page, Ctrl-C ended it (130)"
ok=1
