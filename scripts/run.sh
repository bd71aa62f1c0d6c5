#!/bin/sh
# Build hcqcl (Release) and run the main sample through the system's ICD
# loader, pointed at the build tree. On a machine with the NVIDIA driver
# it runs on the GPU, otherwise on the emulated device (HCQCL_DEVICE
# overrides). Arguments go to the sample.
#   SAMPLE     sample program to run (default below; one of samples/)
#   EMU_ARGS   its arguments on the emulated device when none are given
#   BUILD_DIR  build directory (default: build-release)
set -eu
cd "$(dirname "$0")/.."
SAMPLE_GIVEN=${SAMPLE:-}
SAMPLE=${SAMPLE:-vector_add}
EMU_ARGS=${EMU_ARGS:-100000} # the sample's arguments on the emulated device
sh scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build-release}
[ -d /usr/local/cuda/bin ] && PATH="$PATH:/usr/local/cuda/bin"
# Warnings are enforced by scripts/test.sh; an optimised build only runs.
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DHCQCL_WERROR=OFF -DHCQCL_TESTS=OFF
cmake --build "$BUILD_DIR" -j "$(nproc)"

# The build directory as an absolute path (BUILD_DIR may be either).
case $BUILD_DIR in
/*) build=$BUILD_DIR ;;
*) build=$(pwd)/$BUILD_DIR ;;
esac
OCL_ICD_VENDORS=$build/vendors
export OCL_ICD_VENDORS
# Host implementations of the samples' kernels for the emulated device.
if [ -z "${HCQCL_EMU_KERNELS:-}" ] && [ -f "$BUILD_DIR/samples/libhcqcl_sample_kernels.so" ]; then
    HCQCL_EMU_KERNELS=$build/samples/libhcqcl_sample_kernels.so
    export HCQCL_EMU_KERNELS
fi

echo "== clinfo -l (OCL_ICD_VENDORS=$OCL_ICD_VENDORS)"
clinfo -l
clinfo -l | grep -q "Platform #[0-9]*: hcqcl" || { echo "run: the loader does not list hcqcl" >&2; exit 1; }

bin=$BUILD_DIR/samples/$SAMPLE/$SAMPLE
if [ ! -x "$bin" ] && [ -z "$SAMPLE_GIVEN" ] && [ -x "$BUILD_DIR/samples/device_query/device_query" ]; then
    # No OpenCL C tool chain here: the sample without kernels instead.
    echo "run: $SAMPLE is not built (its kernel needs clang-16, libclc-16 and ptxas): device_query instead" >&2
    SAMPLE=device_query EMU_ARGS=
    bin=$BUILD_DIR/samples/$SAMPLE/$SAMPLE
fi
if [ ! -x "$bin" ]; then
    echo "run: sample '$SAMPLE' is not built (samples/ needs clang-16, libclc-16 and ptxas)" >&2
    exit 1
fi
# Kernels were compiled into the build's cache at build time.
[ -d "$BUILD_DIR/cache" ] && [ -z "${HCQCL_CACHE_DIR:-}" ] && export HCQCL_CACHE_DIR="$build/cache"
# Without arguments on the emulated device (a CPU), a size it finishes quickly.
if [ $# -eq 0 ] && { [ "${HCQCL_DEVICE:-auto}" = emu ] ||
                     { [ "${HCQCL_DEVICE:-auto}" = auto ] && [ ! -e /dev/nvidiactl ]; }; }; then
    set -- $EMU_ARGS
fi
echo "== $bin $*"
cd "$(dirname "$bin")"
exec "./$SAMPLE" "$@"
