#!/bin/sh
# Install what building and testing hcqcl needs (Debian/Ubuntu). Packages
# already present are left alone; with everything present nothing runs.
# Needs root (or sudo) only when something is missing. The CUDA toolkit
# (nvcc, ptxas) is expected at /usr/local/cuda or in PATH: it builds the
# test kernels and serves OpenCL C builds; without it those are skipped.
set -eu

PACKAGES="cmake make gcc libc6-dev opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 \
libelf-dev clinfo binutils clang-16 llvm-16 libclc-16 libclang-rt-16-dev"

missing=
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    if [ "$(id -u)" -eq 0 ]; then
        sudo=
    elif command -v sudo >/dev/null; then
        sudo=sudo
    else
        echo "setup: missing packages:$missing (run as root)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    # shellcheck disable=SC2086
    $sudo apt-get install -y -q --no-install-recommends $missing
else
    echo "setup: all packages present"
fi

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "setup: CUDA toolkit found"
else
    echo "setup: no CUDA toolkit (nvcc): test kernels and source builds are skipped" >&2
fi
