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

# Every package of the tool chain has a candidate in the package lists.
toolchain_packaged() {
    for p in $TOOLCHAIN; do
        apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [^(]' || return 1
    done
}

toolchain_absent() {
    echo "setup: the OpenCL C tool chain (clang-16, libclc-16) is not in this distribution's" \
         "repositories: samples with kernels and builds from source are not built" \
         "(apt.llvm.org has clang-16 for older releases)" >&2
}

# shellcheck disable=SC2086
base_missing=$(missing_of $BASE)
# shellcheck disable=SC2086
tc_missing=$(missing_of $TOOLCHAIN)
# Package lists present (not a fresh image): whether the tool chain is
# packaged is known without root, and a missing one asks for nothing.
if [ -n "$tc_missing" ] && ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 &&
   ! toolchain_packaged; then
    toolchain_absent
    tc_missing=
fi

want="$base_missing$tc_missing"
if [ -z "$want" ]; then
    echo "setup: all packages present"
else
    if [ "$(id -u)" -eq 0 ]; then
        sudo=
    elif command -v sudo >/dev/null; then
        sudo=sudo
    else
        echo "setup: missing packages:$want (run as root)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    if [ -n "$tc_missing" ] && ! toolchain_packaged; then
        toolchain_absent
        tc_missing=
    fi
    want="$base_missing$tc_missing"
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
