#!/bin/sh
# image_compile_test.sh HCQCL_CC IMAGES_CL WORKDIR
#
# The image built-ins through hcqcl-cc:
#  - images.cl builds to a cubin (ptxas accepts it) as OpenCL C 1.2 and
#    3.0 (the image features hcqcl-cc turns on), and at -cl-opt-disable
#    (the conversions irimage.c defines are inlined at -O0 too);
#  - no call of a conversion is left in the PTX;
#  - a program that calls no image built-in carries none of the image
#    library: one function (its kernel) in the IR, one .entry and no
#    .func, no global or constant data in the PTX.
set -u
cc=$1 src=$2 work=$3
fail=0
rm -rf "$work" && mkdir -p "$work" || exit 1
# Builds share the shim cache of the build's other compiler tests.
for std in CL1.2 CL3.0; do
    if ! "$cc" --emit=cubin -cl-std=$std -o "$work/images-$std.cubin" "$src" 2>"$work/log-$std"; then
        echo "FAIL images.cl -cl-std=$std:"; cat "$work/log-$std"; fail=1
    elif [ ! -s "$work/images-$std.cubin" ]; then
        echo "FAIL images.cl -cl-std=$std: empty cubin"; fail=1
    else
        echo "PASS images.cl -cl-std=$std"
    fi
done
if "$cc" --emit=ptx -cl-opt-disable -o "$work/images-O0.ptx" "$src" 2>"$work/log-O0" &&
   "$cc" --emit=cubin -cl-opt-disable -o "$work/images-O0.cubin" "$src" 2>>"$work/log-O0"; then
    echo "PASS images.cl -cl-opt-disable"
else
    echo "FAIL images.cl -cl-opt-disable:"; cat "$work/log-O0"; fail=1
fi
"$cc" --emit=ptx -o "$work/images.ptx" "$src" 2>"$work/log-ptx" || fail=1
for f in "$work/images.ptx" "$work/images-O0.ptx"; do
    if grep -q '__hcqcl_image_abi\|__hcqcl_sampler_bits\|__translate_sampler_initializer' "$f"; then
        echo "FAIL $(basename "$f"): a conversion is still called"; fail=1
    fi
done

cat >"$work/plain.cl" <<'CL'
kernel void no_images(global float *a)
{
    a[get_global_id(0)] *= 2.0f;
}
CL
for std in CL1.2 CL3.0; do
    "$cc" --emit=llvm -cl-std=$std -o "$work/plain-$std.ll" "$work/plain.cl" 2>"$work/log-plain" &&
    "$cc" --emit=ptx -cl-std=$std -o "$work/plain-$std.ptx" "$work/plain.cl" 2>>"$work/log-plain" ||
        { echo "FAIL plain.cl -cl-std=$std:"; cat "$work/log-plain"; fail=1; continue; }
    defs=$(grep -c '^define ' "$work/plain-$std.ll")
    entries=$(grep -c '\.entry ' "$work/plain-$std.ptx")
    funcs=$(grep -c '\.func' "$work/plain-$std.ptx")
    data=$(grep -c '^\.\(global\|const\) ' "$work/plain-$std.ptx")
    if [ "$defs" = 1 ] && [ "$entries" = 1 ] && [ "$funcs" = 0 ] && [ "$data" = 0 ] &&
       ! grep -q 'himg\|img_read\|hcqcl_image' "$work/plain-$std.ll"; then
        echo "PASS plain.cl -cl-std=$std: no image code"
    else
        echo "FAIL plain.cl -cl-std=$std: $defs definitions, $entries entries, $funcs functions, $data data"
        fail=1
    fi
done
exit $fail
