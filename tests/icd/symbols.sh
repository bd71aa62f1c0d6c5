#!/bin/sh
# The ICD exports exactly the three functions the ICD loaders look up, and
# stays loaded once loaded.
set -eu
lib=${1:?usage: symbols.sh LIBHCQCL}
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRriV]$/ { print $3 }' | LC_ALL=C sort)
want=$(printf '%s\n' clGetExtensionFunctionAddress clGetPlatformInfo clIcdGetPlatformIDsKHR)
if [ "$got" != "$want" ]; then
    echo "exported symbols differ:" >&2
    printf 'expected:\n%s\ngot:\n%s\n' "$want" "$got" >&2
    exit 1
fi
# Its threads outlive any dlclose: the library stays mapped (DF_1_NODELETE).
if ! readelf -d "$lib" | grep -q 'Flags:.*NODELETE'; then
    echo "the library is not marked NODELETE (-z nodelete)" >&2
    exit 1
fi
echo "icd_symbols: exactly the three ICD exports, NODELETE"
