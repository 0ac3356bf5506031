#!/usr/bin/env bash
# `pip install ./python` into a fresh virtual environment (offline: the module's build backend is
# its own, standard library only), then tests/test_python_module.py in it, against the built C
# library (KERNELSCOPE_LIBRARY). The environment sees the system's NumPy (--system-site-packages):
# the first of PYTHON, the build's Python and /usr/bin/python3 whose environments see NumPy runs it;
# none: skipped (77).
# Usage: python_module.sh SOURCE_DIR LIBRARY CONSUMER [PYTHON]
set -eu
src=$1 lib=$2 consumer=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_python.XXXXXX")
ok=0
trap '[ "$ok" = 1 ] && rm -rf "$tmp" || echo "kept $tmp (the scratch of a failed test)"' EXIT
# A Python that is itself a virtual environment hands a new one its base's packages, not its own:
# a candidate counts only when NumPy imports inside the environment made from it.
py=""
for p in ${4:-} python3 /usr/bin/python3; do
  command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy, venv" 2>/dev/null || continue
  rm -rf "$tmp/venv"
  if "$p" -m venv --system-site-packages "$tmp/venv" && "$tmp/venv/bin/python" -c "import numpy" 2>/dev/null; then
    py=$p
    break
  fi
done
if [ -z "$py" ]; then
  ok=1
  echo "skipped: no Python whose virtual environments see NumPy (Debian: python3-numpy python3-venv)"
  exit 77
fi
# a copy: pip builds in place, and the source tree stays clean
cp -r "$src/python" "$tmp/python"
"$tmp/venv/bin/pip" install --no-index --disable-pip-version-check -q "$tmp/python"
"$tmp/venv/bin/python" -c "import kernelscope, sys; assert kernelscope.__file__.startswith(sys.prefix), kernelscope.__file__"
mkdir "$tmp/scratch"
(cd "$tmp" && KERNELSCOPE_LIBRARY="$lib" "$tmp/venv/bin/python" "$src/tests/test_python_module.py" "$consumer" "$tmp/scratch")
# the example a user starts from: a NumPy heat solver, 300 iterations, its page served, its last picture saved
(cd "$tmp" && KERNELSCOPE_LIBRARY="$lib" "$tmp/venv/bin/python" "$src/examples/heat_numpy.py" --size 96 --steps 300 \
   --save "$tmp/scratch/heat.png" | tee "$tmp/example.log")
grep -q "open http://127.0.0.1:" "$tmp/example.log" && grep -q "saved a 96 x 96 picture after 300 iterations" "$tmp/example.log" ||
  { echo "FAIL: examples/heat_numpy.py"; exit 1; }
# Ctrl-C once its page is served (its own line): the picture saved, the viewer closed, exit 130, no traceback.
# Job control on: a job started in the background without it would ignore SIGINT.
set -m
(cd "$tmp" && KERNELSCOPE_LIBRARY="$lib" exec "$tmp/venv/bin/python" "$src/examples/heat_numpy.py" --size 96 \
   --save "$tmp/scratch/stopped.png") >"$tmp/sigint.out" 2>"$tmp/sigint.err" &
pid=$!
set +m
until grep -q "open http://127.0.0.1:" "$tmp/sigint.out"; do
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/sigint.out" "$tmp/sigint.err"; echo "FAIL: the example ended before serving"; exit 1; }
  sleep 0.05
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [ "$rc" != 130 ] || grep -q Traceback "$tmp/sigint.err" || ! grep -q "stopped by Ctrl-C" "$tmp/sigint.err" ||
   ! grep -q "saved a 96 x 96 picture" "$tmp/sigint.out"; then
  cat "$tmp/sigint.out" "$tmp/sigint.err"
  echo "FAIL: Ctrl-C in examples/heat_numpy.py: exit $rc (want 130, the picture saved, no traceback)"
  exit 1
fi
ok=1
