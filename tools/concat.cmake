# cmake -DIN="a;b;c" -DOUT=file -P concat.cmake
# Writes the files of IN one after the other into OUT, each after a
# `#line 1 "<its name>"` line, so that a compiler's messages name the
# file and line they came from (hcqcl-cc's shim is one text made of
# several files).
set(text "")
foreach(f ${IN})
  file(READ "${f}" part)
  get_filename_component(name "${f}" NAME)
  string(APPEND text "#line 1 \"${name}\"\n${part}")
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
