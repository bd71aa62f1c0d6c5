#!/bin/sh
# clinfo (through the loader, OCL_ICD_VENDORS from the test environment)
# lists the hcqcl platform and its devices. clinfo exits 0 even when it
# finds nothing, so the output text is what is checked.
set -eu
command -v clinfo >/dev/null || { echo "clinfo is not installed" >&2; exit 1; }
out=$(clinfo -l 2>&1) || true
echo "$out"
echo "$out" | grep -q "Platform #[0-9]*: hcqcl$" || { echo "hcqcl platform not listed" >&2; exit 1; }
devices=$(echo "$out" | grep -c -- "-- Device #" || true)
# Exactly HCQCL_EMU_GPUS emulated devices, or at least one GPU.
if [ "${HCQCL_DEVICE:-auto}" = emu ] || { [ "${HCQCL_DEVICE:-auto}" = auto ] && [ ! -e /dev/nvidiactl ]; }; then
    want=${HCQCL_EMU_GPUS:-1}
    [ "$devices" -eq "$want" ] || { echo "$devices devices listed, expected $want" >&2; exit 1; }
else
    [ "$devices" -ge 1 ] || { echo "no device listed" >&2; exit 1; }
fi
# The full report reads every platform and device query without an error.
full=$(clinfo 2>&1) || true
echo "$full" | grep -q "Platform Name *hcqcl" || { echo "clinfo: no platform details" >&2; exit 1; }
echo "$full" | grep -q "Device Vendor ID *0x10de" || { echo "clinfo: no NVIDIA device" >&2; exit 1; }
if echo "$full" | grep -E "<(getPlatformInfo|getDeviceInfo|get[A-Za-z]*Info)[^>]*(error|Invalid)" >&2; then
    echo "clinfo: queries failed (above)" >&2
    exit 1
fi
echo "icd_clinfo: platform and $devices device(s) listed"
