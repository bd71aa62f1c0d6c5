# cmake -DIN=file -DOUT=file.c -DSYMBOL=name -P embed.cmake
# Writes a C file defining `const unsigned char SYMBOL[]` (the bytes of IN
# plus a terminating 0) and `const unsigned long SYMBOL_size`.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR n "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}.tmp"
  "/* Generated from ${IN} by embed.cmake. */\n"
  "const unsigned char ${SYMBOL}[] __attribute__((aligned(8))) = {\n${body}0x00};\n"
  "const unsigned long ${SYMBOL}_size = ${n};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
