#!/bin/sh
# Build hcqcl with AddressSanitizer + UBSan and run the whole test suite
# through the ICD loader. Exit status: ctest's.
#   BUILD_DIR  build directory (default: build)
#   JOBS       parallel build jobs (default: all cores)
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
# The CUDA toolkit is found in PATH or at its default place.
[ -d /usr/local/cuda/bin ] && PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B "$BUILD_DIR" -DHCQCL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD_DIR" -j "$JOBS"
cd "$BUILD_DIR"
exec ctest --output-on-failure -j "$JOBS"
