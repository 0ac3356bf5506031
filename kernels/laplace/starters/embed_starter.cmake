# Turns one starter kernel (kernels/laplace/starters/NAME.cu) into a C string,
# ks_laplace_starter_NAME, for kernelscope new-kernel --from NAME.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n    " body "${body}")
file(WRITE ${OUT}.new "/* Generated from ${NAME}.cu by kernels/laplace/starters/embed_starter.cmake. */\n\nconst char ks_laplace_starter_${NAME}[] = {\n    ${body}0x00};\n")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
