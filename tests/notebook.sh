#!/usr/bin/env bash
# kernelscope in a notebook, with a real notebook stack from PyPI: a virtual environment with
# `pip install ./python[notebook]` (anywidget, JupyterLab) and nbclient, kept in the build folder
# between runs (remade when its list of packages changes or it no longer imports), the module
# itself installed afresh from this source tree every run. Then:
#   widget  tests/notebook_widget.py: JupyterLab driven by headless Chromium (a NumPy heat field's
#           widget gets pictures, a key pressed in it comes back from poll(), its picture is the page's)
#   magic   tests/notebook_magic.py: %%kernelscope through nbclient (compile errors, no device,
#           --bench; the live view and a reload where there is a CUDA device)
# Skipped (77) with one line when pip cannot reach the package index, or without Chromium (widget).
# Usage: notebook.sh MODE SOURCE_DIR BUILD_DIR LIBRARY KERNELSCOPE [PYTHON]
set -eu
mode=$1 src=$2 build=$3 lib=$4 bin=$5
venv="$build/notebook-venv-$mode"
# what each environment holds (a change here remakes it): the magic's needs no JupyterLab
case "$mode" in
  widget) packages="anywidget>=0.9 jupyterlab>=4 nbclient ipykernel" lab_import=", jupyterlab" ;;
  *) packages="anywidget>=0.9 nbclient ipykernel" lab_import="" ;;
esac
# KS_NOTEBOOK_WHEELS=DIR: the packages from wheels in DIR (pip download them where the index is
# reachable) on a machine that cannot reach it
index=()
[ -n "${KS_NOTEBOOK_WHEELS:-}" ] && index=(--no-index --find-links "$KS_NOTEBOOK_WHEELS")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_notebook.XXXXXX")
ok=0
trap '[ "$ok" = 1 ] && rm -rf "$tmp" || echo "kept $tmp (the scratch of a failed test)"' EXIT
if [ "$mode" = widget ]; then
  browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  [ -n "$browser" ] || { ok=1; echo "skipped: no chromium"; exit 77; }
fi
# make_venv PYTHON DIR [--without-pip]: a virtual environment that sees PYTHON's packages: the
# system's (--system-site-packages), and, where PYTHON runs in a virtual environment of its own
# (a GPU server's PyTorch one), that environment's too, through a .pth file.
make_venv() {
  local p=$1 dir=$2
  shift 2
  "$p" -m venv --system-site-packages "$@" "$dir" || return 1
  "$p" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' || return 0
  local site
  site=$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') &&
    "$p" -c 'import site; print("\n".join(site.getsitepackages()))' >"$site/ks-parent-env.pth"
}
# A Python whose virtual environments see NumPy (the system's), as tests/python_module.sh chooses.
py=""
for p in ${6:-} python3 /usr/bin/python3; do
  command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy, venv" 2>/dev/null || continue
  rm -rf "$tmp/probe"
  if make_venv "$p" "$tmp/probe" --without-pip && "$tmp/probe/bin/python" -c "import numpy" 2>/dev/null
  then py=$(command -v "$p"); break; fi
done
[ -n "$py" ] || { ok=1; echo "skipped: no Python whose virtual environments see NumPy (Debian: python3-numpy python3-venv)"; exit 77; }
stamp="$py | $packages"
# A half-made environment (a run stopped while pip ran) is remade.
if [ ! -f "$venv/ks-stamp" ] || [ "$(cat "$venv/ks-stamp")" != "$stamp" ] ||
   ! "$venv/bin/python" -c "import anywidget, nbclient, ipykernel${lab_import}" 2>/dev/null; then
  rm -rf "$venv"
  make_venv "$py" "$venv"
  # shellcheck disable=SC2086
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q "${index[@]}" $packages >"$tmp/pip.log" 2>&1; then
    if grep -qiE "Could not find a version|No matching distribution|connection|resolve|network|timed out|Max retries" "$tmp/pip.log"; then
      rm -rf "$venv"
      ok=1
      echo "skipped: pip cannot reach the package index to install JupyterLab ($(grep -m1 -iE 'error|warning' "$tmp/pip.log" | cut -c1-120))"
      exit 77
    fi
    cat "$tmp/pip.log"
    echo "FAIL: pip install $packages"
    exit 1
  fi
  echo "$stamp" >"$venv/ks-stamp"
fi
# this source tree's module
cp -r "$src/python" "$tmp/python"
"$venv/bin/python" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps --no-index "$tmp/python"
# the widget's: with the extra a user asks for (its packages are in place: nothing to download)
[ "$mode" = widget ] && "$venv/bin/python" -m pip install --disable-pip-version-check -q "$tmp/python[notebook]"
mkdir "$tmp/scratch"
export KERNELSCOPE_LIBRARY="$lib" KERNELSCOPE_BIN="$bin"
# the notebook stack's own settings and state in the scratch folder, not in HOME
export JUPYTER_CONFIG_DIR="$tmp/jupyter-config" JUPYTER_RUNTIME_DIR="$tmp/jupyter-runtime" IPYTHONDIR="$tmp/ipython"
export JUPYTER_PLATFORM_DIRS=1 JUPYTERLAB_SETTINGS_DIR="$tmp/lab-settings" JUPYTERLAB_WORKSPACES_DIR="$tmp/lab-workspaces"
case "$mode" in
  widget) "$venv/bin/python" -u "$src/tests/notebook_widget.py" "$browser" "$tmp/scratch" ;;
  magic) "$venv/bin/python" -u "$src/tests/notebook_magic.py" "$bin" "$tmp/scratch" ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
ok=1
