#include "readback.h"

#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>

#include "gl_util.h"

enum { KS_READBACK_MAX = 8, KS_READBACK_DEFAULT_SLOTS = 3 };

typedef struct rb_slot {
    GLuint pbo;
    size_t cap;    /* bytes */
    GLsync fence;  /* non-NULL while in flight */
    int w, h;
    long long tag;
} rb_slot;

struct ks_readback {
    int n;
    rb_slot slot[KS_READBACK_MAX];
    int head, count;   /* in flight: slots head .. head + count - 1 (oldest first) */
    int mapped;        /* slot index mapped by poll, -1 none */
};

/* The one place zero fields become defaults. */
static ks_readback_desc readback_desc_defaults(const ks_readback_desc *desc)
{
    ks_readback_desc d = desc ? *desc : (ks_readback_desc){0};
    if (d.slots == 0) d.slots = KS_READBACK_DEFAULT_SLOTS;
    return d;
}

ks_status ks_readback_create(const ks_readback_desc *desc, ks_readback **out)
{
    if (out == NULL) return ks_fail(KS_ERR_INVALID, "readback: no output pointer");
    *out = NULL;
    const int slots = readback_desc_defaults(desc).slots;
    if (slots < 2 || slots > KS_READBACK_MAX)
        return ks_fail(KS_ERR_INVALID, "readback: %d buffers (2..%d)", slots, KS_READBACK_MAX);
    if (glGenBuffers == NULL || glFenceSync == NULL)
        return ks_fail(KS_ERR_GL, "readback: no current OpenGL 3.3 context");
    ks_readback *r = calloc(1, sizeof *r);
    if (!r) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    r->n = slots;
    r->mapped = -1;
    for (int i = 0; i < slots; ++i) glGenBuffers(1, &r->slot[i].pbo);
    ks_status st = ks_gl_check("creating readback buffers");
    if (st != KS_OK) {
        ks_readback_destroy(r);
        return st;
    }
    *out = r;
    return KS_OK;
}

void ks_readback_destroy(ks_readback *r)
{
    if (!r) return;
    if (r->mapped >= 0) ks_readback_release(r);
    for (int i = 0; i < r->n; ++i) {
        if (r->slot[i].fence) glDeleteSync(r->slot[i].fence);
        if (r->slot[i].pbo) glDeleteBuffers(1, &r->slot[i].pbo);
    }
    free(r);
}

ks_status ks_readback_push(ks_readback *r, unsigned int tex, int w, int h, long long tag, int *queued)
{
    *queued = 0;
    if (w <= 0 || h <= 0 || tex == 0) return ks_fail(KS_ERR_INVALID, "readback: no picture (%dx%d)", w, h);
    if (r->count == r->n || (r->mapped >= 0 && r->count == r->n - 1)) return KS_OK; /* all busy: drop */
    const int i = (r->head + r->count) % r->n;
    rb_slot *s = &r->slot[i];
    const size_t bytes = (size_t)w * (size_t)h * 4;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, s->pbo);
    if (bytes > s->cap) {
        glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
        s->cap = bytes;
    }
    GLint pack = 4;
    glGetIntegerv(GL_PACK_ALIGNMENT, &pack);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glBindTexture(GL_TEXTURE_2D, tex);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, (void *)0); /* into the PBO: returns at once */
    glBindTexture(GL_TEXTURE_2D, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, pack);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    s->fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush(); /* the fence must reach the GPU to ever signal */
    KS_TRY(ks_gl_check("queueing a picture readback"));
    if (!s->fence) return ks_fail(KS_ERR_GL, "readback: glFenceSync failed");
    s->w = w;
    s->h = h;
    s->tag = tag;
    ++r->count;
    *queued = 1;
    return KS_OK;
}

ks_status ks_readback_poll(ks_readback *r, ks_readback_image *img, int *ready)
{
    *ready = 0;
    memset(img, 0, sizeof *img);
    if (r->mapped >= 0) return ks_fail(KS_ERR_INVALID, "readback: poll before release");
    if (r->count == 0) return KS_OK;
    rb_slot *s = &r->slot[r->head];
    const GLenum w = glClientWaitSync(s->fence, 0, 0); /* timeout 0: only asks */
    if (w == GL_TIMEOUT_EXPIRED) return KS_OK;
    if (w == GL_WAIT_FAILED) return ks_fail(KS_ERR_GL, "readback: glClientWaitSync failed");
    glDeleteSync(s->fence);
    s->fence = NULL;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, s->pbo);
    const void *p = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)((size_t)s->w * (size_t)s->h * 4),
                                     GL_MAP_READ_BIT);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    const int slot = r->head;
    r->head = (r->head + 1) % r->n;
    --r->count;
    if (!p) {
        KS_TRY(ks_gl_check("mapping a readback buffer"));
        return ks_fail(KS_ERR_GL, "readback: glMapBufferRange returned NULL");
    }
    r->mapped = slot;
    img->rgba = p;
    img->width = s->w;
    img->height = s->h;
    img->tag = s->tag;
    *ready = 1;
    return KS_OK;
}

ks_status ks_readback_release(ks_readback *r)
{
    if (r->mapped < 0) return KS_OK;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, r->slot[r->mapped].pbo);
    const GLboolean ok = glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    r->mapped = -1;
    if (!ok) return ks_fail(KS_ERR_GL, "readback: buffer contents lost while mapped");
    return ks_gl_check("unmapping a readback buffer");
}
