#!/bin/sh
# Install what building and testing hcqcl needs (Debian/Ubuntu). Packages
# already present are left alone; with everything present nothing runs.
# Needs root (or sudo) only when something is missing. The CUDA toolkit
# (nvcc, ptxas) is expected at /usr/local/cuda or in PATH: it builds the
# test kernels and serves OpenCL C builds; without it those are skipped.
#
# The OpenCL C tool chain (clang 16 and libclc 16) comes from the
# distribution where it has it (Debian 12, Ubuntu 24.04). Where it does
# not (Ubuntu 22.04), the rest is installed, the build leaves out what
# needs it (samples with kernels, builds from source) and says so.
set -eu

BASE="cmake make gcc libc6-dev opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 \
libelf-dev clinfo binutils"
TOOLCHAIN="clang-16 llvm-16 libclc-16 libclang-rt-16-dev"

missing_of() {
    m=
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            m="$m $p"
        fi
    done
    echo "$m"
}

# shellcheck disable=SC2086
missing=$(missing_of $BASE $TOOLCHAIN)
if [ -z "$missing" ]; then
    echo "setup: all packages present"
else
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
    # The tool chain only where the distribution has every package of it.
    # shellcheck disable=SC2086
    tc_missing=$(missing_of $TOOLCHAIN)
    for p in $tc_missing; do
        if ! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [^(]'; then
            echo "setup: $p is not in this distribution's repositories: the OpenCL C tool" \
                 "chain (clang-16, libclc-16) is left out; samples with kernels and builds" \
                 "from source are not built (apt.llvm.org has clang-16 for older releases)" >&2
            tc_missing=
            break
        fi
    done
    # shellcheck disable=SC2086
    want="$(missing_of $BASE)$tc_missing"
    if [ -n "$want" ]; then
        echo "setup: installing$want"
        # shellcheck disable=SC2086
        $sudo apt-get install -y -q --no-install-recommends $want
    fi
fi

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "setup: CUDA toolkit found"
else
    echo "setup: no CUDA toolkit (nvcc): test kernels and source builds are skipped" >&2
fi
