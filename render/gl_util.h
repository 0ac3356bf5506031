/* Small OpenGL helpers for render/: error names, checked shader programs and
 * a growable vertex list drawn as triangles. Needs a current GL context. */
#ifndef KS_GL_UTIL_H
#define KS_GL_UTIL_H

#include <stddef.h>

#include <GL/glew.h>

#include "base/ks_error.h"

/* "GL_INVALID_OPERATION" etc.; "GL error 0x...." for unknown codes (static buffer). */
const char *ks_gl_error_name(GLenum err);
/* Drains glGetError; on any error fails with KS_ERR_GL "what: GL_NAME[, GL_NAME]". */
ks_status ks_gl_check(const char *what);
/* Compiles shaders/<vert>.glsl + shaders/<frag>.glsl; the info log is in the error text. */
ks_status ks_gl_program(const char *vert, const char *frag, GLuint *out);

/* One vertex of every 2D draw: pixel position, texture coordinate, colour. */
typedef struct ks_vertex {
    float x, y;             /* framebuffer pixels, origin bottom-left */
    float u, v;             /* texture coordinate (unused by solid geometry) */
    unsigned char rgba[4];  /* straight (non-premultiplied) colour */
} ks_vertex;

typedef struct ks_vertex_list {
    ks_vertex *v;
    size_t n, cap;
    int oom; /* set when growing failed; the list then stops accepting */
} ks_vertex_list;

void ks_vlist_clear(ks_vertex_list *l);
void ks_vlist_free(ks_vertex_list *l);
/* Axis-aligned rectangle (x, y bottom-left, w, h in pixels) as two triangles,
 * texture coordinates u0,v0 at bottom-left and u1,v1 at top-right. */
void ks_vlist_rect_uv(ks_vertex_list *l, float x, float y, float w, float h, float u0, float v0,
                      float u1, float v1, const unsigned char c[4]);

#endif
