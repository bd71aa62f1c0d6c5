#!/bin/sh
# clinfo on a machine without the OpenCL C tool chain (the GPU machine):
# its kernel query builds a program from source, which the ICD must serve
# from the kernel cache the build filled (tools/clinfo-probe.cl), so the
# report has no error line. Run twice: no hcqcl-cc at all, and hcqcl-cc
# present but its clang missing (what the H200 machine has).
# usage: clinfo_nocc.sh HCQCL-CC
set -eu
command -v clinfo >/dev/null || { echo "clinfo is not installed" >&2; exit 1; }
cc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

check() { # name, then the environment for clinfo
    name=$1
    shift
    # An empty writable cache: only the build's read-only cache can answer.
    rm -rf "$work/cache"
    mkdir -p "$work/cache"
    out=$(env HCQCL_CACHE_DIR="$work/cache" "$@" clinfo 2>&1) || true
    echo "$out" | grep -q "Platform Name *hcqcl" || { echo "$name: hcqcl not listed" >&2; status=1; return; }
    # Error lines, the build log dump, and anything with "error" but the ECC query.
    errs=$(echo "$out" | grep -i -E "error|CL_PROGRAM_BUILD_LOG" | grep -v "Error Correction support" || true)
    if [ -n "$errs" ]; then
        echo "$name: clinfo reported errors:" >&2
        echo "$errs" >&2
        status=1
    fi
    echo "$out" | grep -q "Compiler Available *Yes" ||
        { echo "$name: compiler not reported available (the cache serves builds)" >&2; status=1; }
    echo "$out" | grep -q "Preferred work group size multiple (kernel) *32" ||
        { echo "$name: no kernel work-group multiple" >&2; status=1; }
    # Served from the cache: nothing left in the spool for a missing build.
    if ls "$work/cache" | grep -q '\.cl$'; then
        echo "$name: a build missed the cache:" >&2
        ls "$work/cache" >&2
        status=1
    fi
    [ $status -ne 0 ] || echo "$name: ok"
}

check "no hcqcl-cc" HCQCL_CC=/nonexistent/hcqcl-cc
check "hcqcl-cc without clang" HCQCL_CC="$cc" HCQCL_CLANG=/nonexistent/clang-16
exit $status
