# Turns serve/page/index.html into a C byte array: ks_serve_page, ks_serve_page_len.
file(READ ${PAGE} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n    " body "${body}")
file(WRITE ${OUT}.new "/* Generated from serve/page/index.html by serve/embed_page.cmake. */\n#include <stddef.h>\n\nconst unsigned char ks_serve_page[] = {\n    ${body}0x00};\nconst size_t ks_serve_page_len = ${bytes};\n")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
