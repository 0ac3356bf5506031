#!/usr/bin/env bash
# Installs what kernelscope needs from Debian's packages, skipping what is there.
# The CUDA Toolkit is expected at /usr/local/cuda (or nvcc on PATH); without it
# the CPU backend alone is built (CMake finds no CUDA compiler and says so).
set -euo pipefail
pkgs=(cmake make gcc g++ pkg-config libglfw3-dev libglew-dev libegl-dev libgl-dev libstb-dev
      libimgui-dev libturbojpeg0-dev fonts-dejavu-core libavcodec-dev libavformat-dev libswscale-dev
      libavutil-dev libx264-dev ffmpeg libcmocka-dev libegl-mesa0 libgl1-mesa-dri xvfb xauth xdotool python3
      libwebsockets-dev curl chromium clang libjs-codemirror python3-numpy python3-venv python3-pip
      libopenmpi-dev openmpi-bin)
# clang: scripts/fuzz.sh builds the libFuzzer targets with it (scripts/test.sh runs them)
# libjs-codemirror: the page's kernel editor (--edit); without it the page keeps a plain text area
# python3-numpy, -venv, -pip: the Python module's tests (pip install ./python in a fresh environment)
# libopenmpi-dev, openmpi-bin: one MPI rank a GPU under mpirun (the multi-GPU solver; NCCL comes with the CUDA Toolkit)
missing=()
for p in "${pkgs[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == *"install ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "kernelscope: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "kernelscope: the CUDA Toolkit (nvcc) was not found; the CPU-only build will be made (install CUDA to /usr/local/cuda for the GPU backend)"
fi
