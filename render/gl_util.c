#include "gl_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shader_source.h"

const char *ks_gl_error_name(GLenum err)
{
    switch (err) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: {
        static _Thread_local char buf[32];
        snprintf(buf, sizeof buf, "GL error 0x%04x", (unsigned)err);
        return buf;
    }
    }
}

ks_status ks_gl_check(const char *what)
{
    GLenum first = glGetError();
    if (first == GL_NO_ERROR) return KS_OK;
    char names[160];
    snprintf(names, sizeof names, "%s", ks_gl_error_name(first));
    /* several flags can be set at once; a lost context keeps returning one, so cap it */
    for (int i = 0; i < 8; ++i) {
        GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, ", %s", ks_gl_error_name(e));
    }
    return ks_fail(KS_ERR_GL, "%s: %s", what, names);
}

/* GL info logs end in newlines and spaces; the error is one line. */
static void trim_log(char *log)
{
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = '\0';
}

static ks_status compile(GLenum type, const char *name, GLuint *out)
{
    const char *src = ks_shader_source(name);
    if (src == NULL) return ks_fail(KS_ERR_GL, "shader '%s' is not embedded (shaders/%s.glsl)", name, name);
    GLuint sh = glCreateShader(type);
    if (sh == 0) {
        KS_TRY(ks_gl_check("glCreateShader"));
        return ks_fail(KS_ERR_GL, "glCreateShader(%s) returned 0", name);
    }
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = GL_FALSE;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        trim_log(log);
        return ks_fail(KS_ERR_GL, "shader '%s' does not compile: %s", name, log);
    }
    *out = sh;
    return KS_OK;
}

ks_status ks_gl_program(const char *vert, const char *frag, GLuint *out)
{
    GLuint vs = 0, fs = 0;
    KS_TRY(compile(GL_VERTEX_SHADER, vert, &vs));
    ks_status st = compile(GL_FRAGMENT_SHADER, frag, &fs);
    if (st != KS_OK) {
        glDeleteShader(vs);
        return st;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    /* the program keeps them alive while attached; flag them for deletion now */
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        glDeleteProgram(prog);
        trim_log(log);
        return ks_fail(KS_ERR_GL, "program '%s' + '%s' does not link: %s", vert, frag, log);
    }
    KS_TRY(ks_gl_check("linking shader program"));
    *out = prog;
    return KS_OK;
}

/* ---- vertex list --------------------------------------------------------- */

void ks_vlist_clear(ks_vertex_list *l)
{
    l->n = 0;
    l->oom = 0;
}

void ks_vlist_free(ks_vertex_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

static ks_vertex *reserve(ks_vertex_list *l, size_t k)
{
    if (l->oom) return NULL;
    if (l->n + k > l->cap) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap < l->n + k) cap *= 2;
        ks_vertex *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL) {
            l->oom = 1;
            return NULL;
        }
        l->v = v;
        l->cap = cap;
    }
    ks_vertex *p = l->v + l->n;
    l->n += k;
    return p;
}

static void set(ks_vertex *v, float x, float y, float u, float t, const unsigned char c[4])
{
    v->x = x;
    v->y = y;
    v->u = u;
    v->v = t;
    memcpy(v->rgba, c, 4);
}

void ks_vlist_rect_uv(ks_vertex_list *l, float x, float y, float w, float h, float u0, float v0,
                      float u1, float v1, const unsigned char c[4])
{
    if (w <= 0 || h <= 0) return;
    ks_vertex *v = reserve(l, 6);
    if (v == NULL) return;
    set(&v[0], x, y, u0, v0, c);
    set(&v[1], x + w, y, u1, v0, c);
    set(&v[2], x + w, y + h, u1, v1, c);
    set(&v[3], x, y, u0, v0, c);
    set(&v[4], x + w, y + h, u1, v1, c);
    set(&v[5], x, y + h, u0, v1, c);
}

