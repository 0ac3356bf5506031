/* Embedded GLSL sources (shaders/<name>.glsl, compiled into the binary). */
#ifndef KS_SHADER_SOURCE_H
#define KS_SHADER_SOURCE_H
const char *ks_shader_source(const char *name); /* NULL when no such shader */
#endif
