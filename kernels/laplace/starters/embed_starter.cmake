# Turns one starter kernel (kernels/SCENE/starters/NAME.cu) into a C string,
# ks_SCENE_starter_NAME, for kernelscope new-kernel --from NAME. SCENE: laplace
# when not given.
if(NOT SCENE)
  set(SCENE laplace)
endif()
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n    " body "${body}")
file(WRITE ${OUT}.new "/* Generated from kernels/${SCENE}/starters/${NAME}.cu by kernels/laplace/starters/embed_starter.cmake. */\n\nconst char ks_${SCENE}_starter_${NAME}[] = {\n    ${body}0x00};\n")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
