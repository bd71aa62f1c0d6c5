# cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -P embed.cmake
# Writes a C file defining `const unsigned char NAME[]` and `NAME_size`
# with the bytes of IN.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR size "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUT}"
  "/* Generated from ${IN} by embed.cmake. */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${NAME}[] __attribute__((aligned(64))) = {\n    ${bytes}\n};\n"
  "const size_t ${NAME}_size = ${size};\n")
