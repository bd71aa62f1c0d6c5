#!/bin/sh
# Build hcqcl (Release) and run the main sample through the system's ICD
# loader, pointed at the build tree. On a machine with the NVIDIA driver
# it runs on the GPU, otherwise on the emulated device (HCQCL_DEVICE
# overrides). Arguments go to the sample.
#   SAMPLE     sample program to run (default below; built from samples/)
#   BUILD_DIR  build directory (default: build-release)
set -eu
cd "$(dirname "$0")/.."
SAMPLE=${SAMPLE:-vector_add}
sh scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build-release}
[ -d /usr/local/cuda/bin ] && PATH="$PATH:/usr/local/cuda/bin"
# Warnings are enforced by scripts/test.sh; an optimised build only runs.
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DHCQCL_WERROR=OFF
cmake --build "$BUILD_DIR" -j "$(nproc)"

OCL_ICD_VENDORS=$(pwd)/$BUILD_DIR/vendors
export OCL_ICD_VENDORS
# Host implementations of the samples' kernels for the emulated device.
if [ -z "${HCQCL_EMU_KERNELS:-}" ]; then
    libs=$(find "$BUILD_DIR" -name 'libhcqcl_*kernels*.so' 2>/dev/null | tr '\n' ':')
    HCQCL_EMU_KERNELS=${libs%:}
    export HCQCL_EMU_KERNELS
fi

echo "== clinfo -l (OCL_ICD_VENDORS=$OCL_ICD_VENDORS)"
clinfo -l
bin=$(find "$BUILD_DIR/samples" -type f -name "$SAMPLE" -perm -u+x 2>/dev/null | head -n 1)
if [ -z "$bin" ]; then
    echo "run: sample '$SAMPLE' is not built (samples/ provides it); clinfo above is the check" >&2
    clinfo -l | grep -q "Platform #[0-9]*: hcqcl" || exit 1
    exit 0
fi
echo "== $bin $*"
exec "$bin" "$@"
