# Turns one starter kernel (kernels/SCENE/starters/NAME.cu) into a C string,
# ks_SCENE_starter_NAME, for kernelscope new-kernel --from NAME (CMakeLists.txt
# finds every starter and passes IN, OUT, NAME and SCENE).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n    " body "${body}")
file(WRITE ${OUT}.new "/* Generated from kernels/${SCENE}/starters/${NAME}.cu by kernels/embed_starter.cmake. */\n\nconst char ks_${SCENE}_starter_${NAME}[] = {\n    ${body}0x00};\n")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
