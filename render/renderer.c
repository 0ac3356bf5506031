/* The frame: picture texture (from a ring of PBOs, each read fenced), composed with the UI panels
 * in an off-screen framebuffer and then blitted to the window, so that a saved
 * frame (read_frame) is exactly what is shown. */
#include "renderer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>

#include "gl_util.h"

struct ks_renderer {
    size_t max_pixels;       /* PBO capacity in RGBA8 pixels */
    GLuint pbo[KS_RENDERER_RING];   /* GL_PIXEL_UNPACK_BUFFER, max_pixels * 4 bytes each */
    GLsync fence[KS_RENDERER_RING]; /* after the last read of the slot; 0 when none pending */
    int upload_next;         /* ring slot of the next host upload */
    int pbo_mapped;          /* 1 between map_pbo and unmap_pbo (slot 0) */

    GLuint image_tex;        /* RGBA8 picture, nearest filtering */
    int img_w, img_h;        /* picture size from set_image; 0 until then */
    GLuint image_fbo;        /* image_tex attached: read_image reads it directly */

    GLuint fbo, fbo_rb;      /* composed frame, RGBA8 renderbuffer */
    int fbo_w, fbo_h;        /* its size; 0 until the first draw */

    GLuint vao, vbo;         /* one vertex format (ks_vertex) for every draw */
    GLuint prog_image;
    GLint vp_image;          /* u_viewport location */
    int drawing;             /* 1 between begin and end: the FBO is bound */

    float pic_x, pic_y, pic_w, pic_h; /* last draw's picture rectangle, fb pixels */
    int pic_img_w, pic_img_h;         /* picture size at that draw */
    int one_to_one;                   /* 1: picture pixel = framebuffer pixel, centred */

    ks_vertex_list list;     /* scratch geometry, reused every frame */
};

/* ---- colours (straight RGBA8) -------------------------------------------- */
static const unsigned char COL_WHITE[4] = {255, 255, 255, 255};
static const float COL_BACKGROUND[3] = {0.11f, 0.11f, 0.12f};

static ks_status renderer_fail_context(void)
{
    return ks_fail(KS_ERR_GL, "renderer: no current OpenGL 3.3 context (GL entry points not loaded)");
}

static void setup_texture(GLuint tex)
{
    glBindTexture(GL_TEXTURE_2D, tex);
    /* nearest: grid cells stay visible as blocks, colour bar entries stay exact */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
}

static ks_status make_program(const char *frag, GLuint *prog, GLint *vp)
{
    KS_TRY(ks_gl_program("pixel_vert", frag, prog));
    *vp = glGetUniformLocation(*prog, "u_viewport");
    if (*vp < 0) return ks_fail(KS_ERR_GL, "shader '%s': no uniform u_viewport", frag);
    glUseProgram(*prog);
    /* every sampler reads texture unit 0 */
    GLint tex = glGetUniformLocation(*prog, "u_tex");
    if (tex >= 0) glUniform1i(tex, 0);
    glUseProgram(0);
    return ks_gl_check("setting up shader program");
}

static ks_status renderer_init(ks_renderer *r)
{
    glGenBuffers(KS_RENDERER_RING, r->pbo);
    for (int s = 0; s < KS_RENDERER_RING; ++s) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo[s]);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)(r->max_pixels * 4), NULL, GL_DYNAMIC_DRAW);
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    KS_TRY(ks_gl_check("creating the pixel buffer objects"));

    glGenTextures(1, &r->image_tex);
    setup_texture(r->image_tex);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &r->image_fbo);
    glGenFramebuffers(1, &r->fbo);
    glGenRenderbuffers(1, &r->fbo_rb);
    KS_TRY(ks_gl_check("creating textures and framebuffers"));

    glGenVertexArrays(1, &r->vao);
    glGenBuffers(1, &r->vbo);
    glBindVertexArray(r->vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ks_vertex), (void *)offsetof(ks_vertex, x));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(ks_vertex), (void *)offsetof(ks_vertex, u));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ks_vertex),
                          (void *)offsetof(ks_vertex, rgba));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    KS_TRY(ks_gl_check("creating vertex arrays"));

    KS_TRY(make_program("image_frag", &r->prog_image, &r->vp_image));
    return KS_OK;
}

ks_status ks_renderer_create(const ks_renderer_desc *desc, ks_renderer **out)
{
    if (out == NULL) return ks_fail(KS_ERR_INVALID, "renderer: no output pointer");
    *out = NULL;
    if (desc == NULL) return ks_fail(KS_ERR_INVALID, "renderer: no desc");
    const size_t max_pixels = desc->max_pixels ? desc->max_pixels : KS_RENDERER_DEFAULT_PIXELS;
    if (max_pixels > (size_t)PTRDIFF_MAX / 4)
        return ks_fail(KS_ERR_INVALID, "renderer: max_pixels %zu out of range", max_pixels);
    if (glGenBuffers == NULL || glGenVertexArrays == NULL) return renderer_fail_context();
    /* a stale error from earlier code must not be blamed on us */
    for (int i = 0; i < 8 && glGetError() != GL_NO_ERROR; ++i) {
    }
    ks_renderer *r = calloc(1, sizeof *r);
    if (r == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "renderer: out of memory");
    r->max_pixels = max_pixels;
    ks_status st = renderer_init(r);
    if (st != KS_OK) {
        ks_error_prefix("renderer");
        ks_renderer_destroy(r);
        return st;
    }
    *out = r;
    return KS_OK;
}

void ks_renderer_destroy(ks_renderer *r)
{
    if (r == NULL) return;
    if (r->pbo_mapped) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo[0]);
        glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    }
    for (int s = 0; s < KS_RENDERER_RING; ++s)
        if (r->fence[s]) glDeleteSync(r->fence[s]);
    /* deleting name 0 is a no-op, so a half-built renderer is fine here */
    glDeleteProgram(r->prog_image);
    glDeleteBuffers(1, &r->vbo);
    glDeleteVertexArrays(1, &r->vao);
    glDeleteFramebuffers(1, &r->fbo);
    glDeleteRenderbuffers(1, &r->fbo_rb);
    glDeleteFramebuffers(1, &r->image_fbo);
    glDeleteTextures(1, &r->image_tex);
    glDeleteBuffers(KS_RENDERER_RING, r->pbo);
    ks_vlist_free(&r->list);
    free(r);
}

unsigned int ks_renderer_pbo(const ks_renderer *r) { return r ? r->pbo[0] : 0; }

unsigned int ks_renderer_pbo_slot(const ks_renderer *r, int slot)
{
    return (r && slot >= 0 && slot < KS_RENDERER_RING) ? r->pbo[slot] : 0;
}

static ks_status check_slot(const ks_renderer *r, int slot, const char *what)
{
    if (r == NULL) return ks_fail(KS_ERR_INVALID, "renderer: %s without renderer", what);
    if (slot < 0 || slot >= KS_RENDERER_RING)
        return ks_fail(KS_ERR_INVALID, "renderer: %s: ring slot %d out of range (0..%d)", what, slot,
                       KS_RENDERER_RING - 1);
    return KS_OK;
}

enum { KS_FENCE_STEP_NS = 100000000, KS_FENCE_LIMIT_STEPS = 100 }; /* 0.1 s steps, 10 s in all */

ks_status ks_renderer_wait_slot(ks_renderer *r, int slot)
{
    KS_TRY(check_slot(r, slot, "wait_slot"));
    GLsync f = r->fence[slot];
    if (!f) return KS_OK;
    /* the first wait flushes, so the fence is sure to reach the GPU */
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    for (int step = 0; step < KS_FENCE_LIMIT_STEPS; ++step) {
        GLenum res = glClientWaitSync(f, flags, KS_FENCE_STEP_NS);
        flags = 0;
        if (res == GL_ALREADY_SIGNALED || res == GL_CONDITION_SATISFIED) {
            glDeleteSync(f);
            r->fence[slot] = 0;
            return KS_OK;
        }
        if (res == GL_WAIT_FAILED) {
            KS_TRY(ks_gl_check("renderer: glClientWaitSync on a picture buffer's fence"));
            return ks_fail(KS_ERR_GL, "renderer: glClientWaitSync on a picture buffer's fence failed");
        }
    }
    return ks_fail(KS_ERR_GL, "renderer: GL did not finish reading picture buffer %d within 10 s", slot);
}

unsigned int ks_renderer_image_texture(const ks_renderer *r, int *w, int *h)
{
    *w = r ? r->img_w : 0;
    *h = r ? r->img_h : 0;
    return r ? r->image_tex : 0;
}

ks_status ks_renderer_map_pbo(ks_renderer *r, void **ptr)
{
    if (r == NULL || ptr == NULL) return ks_fail(KS_ERR_INVALID, "renderer: map_pbo without renderer");
    *ptr = NULL;
    if (r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: pixel buffer is already mapped");
    KS_TRY(ks_renderer_wait_slot(r, 0));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo[0]);
    void *p = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, (GLsizeiptr)(r->max_pixels * 4),
                               GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (p == NULL) {
        KS_TRY(ks_gl_check("renderer: glMapBufferRange on the pixel buffer"));
        return ks_fail(KS_ERR_GL, "renderer: glMapBufferRange on the pixel buffer returned NULL");
    }
    KS_TRY(ks_gl_check("renderer: mapping the pixel buffer"));
    r->pbo_mapped = 1;
    *ptr = p;
    return KS_OK;
}

ks_status ks_renderer_unmap_pbo(ks_renderer *r)
{
    if (r == NULL || !r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: pixel buffer is not mapped");
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo[0]);
    GLboolean ok = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    r->pbo_mapped = 0;
    KS_TRY(ks_gl_check("renderer: glUnmapBuffer on the pixel buffer"));
    /* GL_FALSE: the store was lost (e.g. a mode switch) while mapped */
    if (!ok) return ks_fail(KS_ERR_GL, "renderer: pixel buffer contents lost while mapped; write it again");
    return KS_OK;
}

ks_status ks_renderer_set_image(ks_renderer *r, int w, int h) { return ks_renderer_set_image_slot(r, 0, w, h); }

ks_status ks_renderer_set_image_slot(ks_renderer *r, int slot, int w, int h)
{
    KS_TRY(check_slot(r, slot, "set_image"));
    if (w <= 0 || h <= 0 || (size_t)w > r->max_pixels / (size_t)h)
        return ks_fail(KS_ERR_INVALID, "renderer: picture %d x %d does not fit the pixel buffer (%zu pixels)",
                       w, h, r->max_pixels);
    if (r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: set_image while the pixel buffer is mapped");
    glBindTexture(GL_TEXTURE_2D, r->image_tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    if (w != r->img_w || h != r->img_h) {
        GLint max_tex = 0;
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
        if (w > max_tex || h > max_tex) {
            glBindTexture(GL_TEXTURE_2D, 0);
            return ks_fail(KS_ERR_UNSUPPORTED, "renderer: picture %d x %d exceeds GL_MAX_TEXTURE_SIZE %d",
                           w, h, max_tex);
        }
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        glBindFramebuffer(GL_FRAMEBUFFER, r->image_fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->image_tex, 0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        r->img_w = 0; /* until the upload below succeeds */
        r->img_h = 0;
        KS_TRY(ks_gl_check("renderer: allocating the picture texture"));
    }
    /* with an unpack buffer bound the pointer argument is an offset into it */
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo[slot]);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, (const void *)0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    KS_TRY(ks_gl_check("renderer: copying the pixel buffer into the picture texture"));
    /* the slot is free again once this read has run on the GPU */
    if (r->fence[slot]) glDeleteSync(r->fence[slot]);
    r->fence[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!r->fence[slot]) {
        KS_TRY(ks_gl_check("renderer: glFenceSync after the picture upload"));
        return ks_fail(KS_ERR_GL, "renderer: glFenceSync after the picture upload returned no fence");
    }
    r->img_w = w;
    r->img_h = h;
    return KS_OK;
}

ks_status ks_renderer_upload(ks_renderer *r, const void *rgba, int w, int h)
{
    if (r == NULL || rgba == NULL) return ks_fail(KS_ERR_INVALID, "renderer: upload with a NULL argument");
    if (w <= 0 || h <= 0 || (size_t)w > r->max_pixels / (size_t)h)
        return ks_fail(KS_ERR_INVALID, "renderer: picture %d x %d does not fit the pixel buffer (%zu pixels)",
                       w, h, r->max_pixels);
    if (r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: upload while the pixel buffer is mapped");
    const int slot = r->upload_next;
    r->upload_next = (slot + 1) % KS_RENDERER_RING;
    KS_TRY(ks_renderer_wait_slot(r, slot));
    const size_t bytes = (size_t)w * (size_t)h * 4;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo[slot]);
    /* its fence has signalled: no GL read is pending, so GL need not synchronise again */
    void *p = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, (GLsizeiptr)bytes,
                               GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_RANGE_BIT | GL_MAP_UNSYNCHRONIZED_BIT);
    if (p == NULL) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        KS_TRY(ks_gl_check("renderer: glMapBufferRange for the picture upload"));
        return ks_fail(KS_ERR_GL, "renderer: glMapBufferRange for the picture upload returned NULL");
    }
    memcpy(p, rgba, bytes);
    GLboolean ok = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    KS_TRY(ks_gl_check("renderer: writing the picture upload buffer"));
    if (!ok) return ks_fail(KS_ERR_GL, "renderer: picture upload buffer lost while mapped");
    return ks_renderer_set_image_slot(r, slot, w, h);
}

/* ---- drawing helpers ----------------------------------------------------- */

static ks_status draw_list(ks_renderer *r, GLuint prog, GLint vp, GLuint tex, int blend)
{
    if (r->list.oom) return ks_fail(KS_ERR_OUT_OF_MEMORY, "renderer: out of memory for overlay geometry");
    if (r->list.n == 0) return KS_OK;
    glUseProgram(prog);
    glUniform2f(vp, (float)r->fbo_w, (float)r->fbo_h);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    if (blend) {
        glEnable(GL_BLEND);
        /* alpha channel of the frame stays opaque: saved frames have alpha 255 */
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    } else {
        glDisable(GL_BLEND);
    }
    glBindVertexArray(r->vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    /* fresh store each time: no stall on geometry the GPU still reads */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(r->list.n * sizeof(ks_vertex)), r->list.v, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)r->list.n);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    ks_vlist_clear(&r->list);
    return KS_OK;
}

static const char *framebuffer_status_name(GLenum s)
{
    switch (s) {
    case GL_FRAMEBUFFER_COMPLETE: return "GL_FRAMEBUFFER_COMPLETE";
    case GL_FRAMEBUFFER_UNDEFINED: return "GL_FRAMEBUFFER_UNDEFINED";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    case GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    default: return "unknown framebuffer status";
    }
}

static ks_status ensure_fbo(ks_renderer *r, int w, int h)
{
    if (w == r->fbo_w && h == r->fbo_h) return KS_OK;
    GLint max_rb = 0, dims[2] = {0, 0};
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, dims);
    if (w > max_rb || h > max_rb || w > dims[0] || h > dims[1])
        return ks_fail(KS_ERR_UNSUPPORTED, "renderer: frame %d x %d exceeds the GL limits (%d, %d x %d)",
                       w, h, max_rb, dims[0], dims[1]);
    glBindRenderbuffer(GL_RENDERBUFFER, r->fbo_rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->fbo_rb);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    r->fbo_w = 0;
    r->fbo_h = 0;
    KS_TRY(ks_gl_check("renderer: resizing the frame buffer"));
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return ks_fail(KS_ERR_GL, "renderer: frame buffer %d x %d incomplete: %s", w, h,
                       framebuffer_status_name(status));
    r->fbo_w = w;
    r->fbo_h = h;
    return KS_OK;
}

/* Picture: fit into the area (keeping its aspect), centred. */
static ks_status compose(ks_renderer *r, const float area[4])
{
    ks_vertex_list *l = &r->list;
    ks_vlist_clear(l);
    r->pic_w = r->pic_h = 0.0f;
    r->pic_img_w = r->img_w;
    r->pic_img_h = r->img_h;
    if (r->img_w <= 0 || area[2] < 1.0f || area[3] < 1.0f) return KS_OK;
    if (r->one_to_one) {
        /* whole pixels, centred the way render/viewport.c places the picture */
        r->pic_x = area[0] + (float)(((int)area[2] - r->img_w) / 2);
        r->pic_y = area[1] + (float)(((int)area[3] - r->img_h) / 2);
        r->pic_w = (float)r->img_w;
        r->pic_h = (float)r->img_h;
        ks_vlist_rect_uv(l, r->pic_x, r->pic_y, r->pic_w, r->pic_h, 0, 0, 1, 1, COL_WHITE);
        return draw_list(r, r->prog_image, r->vp_image, r->image_tex, 0);
    }
    float sc = fminf(area[2] / (float)r->img_w, area[3] / (float)r->img_h);
    float w = fmaxf(1.0f, roundf((float)r->img_w * sc)), h = fmaxf(1.0f, roundf((float)r->img_h * sc));
    r->pic_x = area[0] + floorf(0.5f * (area[2] - w));
    r->pic_y = area[1] + floorf(0.5f * (area[3] - h));
    r->pic_w = w;
    r->pic_h = h;
    ks_vlist_rect_uv(l, r->pic_x, r->pic_y, w, h, 0, 0, 1, 1, COL_WHITE);
    return draw_list(r, r->prog_image, r->vp_image, r->image_tex, 0);
}

ks_status ks_renderer_begin(ks_renderer *r, int fb_w, int fb_h, const float area[4])
{
    if (r == NULL) return ks_fail(KS_ERR_INVALID, "renderer: draw without renderer");
    if (r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: draw while the pixel buffer is mapped");
    r->drawing = 0;
    if (fb_w <= 0 || fb_h <= 0) {
        /* minimised window: nothing to show, and pick() finds nothing */
        r->pic_w = r->pic_h = 0.0f;
        return KS_OK;
    }
    KS_TRY(ensure_fbo(r, fb_w, fb_h));
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glViewport(0, 0, fb_w, fb_h);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_CULL_FACE);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glClearColor(COL_BACKGROUND[0], COL_BACKGROUND[1], COL_BACKGROUND[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    const float whole[4] = {0.0f, 0.0f, (float)fb_w, (float)fb_h};
    ks_status st = compose(r, area ? area : whole);
    glDisable(GL_BLEND);
    if (st != KS_OK) {
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        return st;
    }
    r->drawing = 1;
    return ks_gl_check("renderer: drawing the picture");
}

ks_status ks_renderer_end(ks_renderer *r)
{
    if (r == NULL) return ks_fail(KS_ERR_INVALID, "renderer: end without renderer");
    if (!r->drawing) return KS_OK;
    r->drawing = 0;
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    KS_TRY(ks_gl_check("renderer: drawing the frame"));
    /* headless (surfaceless) contexts have no default framebuffer to show */
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo);
        glBlitFramebuffer(0, 0, r->fbo_w, r->fbo_h, 0, 0, r->fbo_w, r->fbo_h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    }
    return ks_gl_check("renderer: showing the frame");
}

/* Reads w x h RGBA8 from the framebuffer fbo into a malloc'd top-down copy. */
static ks_status read_fbo(GLuint fbo, int w, int h, unsigned char **out, const char *what)
{
    size_t row = (size_t)w * 4;
    unsigned char *p = malloc(row * (size_t)h);
    if (p == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "renderer: out of memory reading the %s", what);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, p);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    char ctx[64];
    snprintf(ctx, sizeof ctx, "renderer: reading the %s", what);
    ks_status st = ks_gl_check(ctx);
    if (st != KS_OK) {
        free(p);
        return st;
    }
    /* GL rows are bottom-up; files and callers want top-down */
    unsigned char tmp[4096];
    for (int y = 0; y < h / 2; ++y) {
        unsigned char *a = p + (size_t)y * row, *b = p + (size_t)(h - 1 - y) * row;
        for (size_t o = 0; o < row; o += sizeof tmp) {
            size_t k = row - o < sizeof tmp ? row - o : sizeof tmp;
            memcpy(tmp, a + o, k);
            memcpy(a + o, b + o, k);
            memcpy(b + o, tmp, k);
        }
    }
    *out = p;
    return KS_OK;
}

ks_status ks_renderer_read_frame(ks_renderer *r, unsigned char **rgba, int *w, int *h)
{
    if (r == NULL || rgba == NULL || w == NULL || h == NULL)
        return ks_fail(KS_ERR_INVALID, "renderer: read_frame with a NULL argument");
    *rgba = NULL;
    if (r->fbo_w <= 0) return ks_fail(KS_ERR_INVALID, "renderer: no frame drawn yet");
    KS_TRY(read_fbo(r->fbo, r->fbo_w, r->fbo_h, rgba, "frame"));
    *w = r->fbo_w;
    *h = r->fbo_h;
    return KS_OK;
}

ks_status ks_renderer_read_image(ks_renderer *r, unsigned char **rgba, int *w, int *h)
{
    if (r == NULL || rgba == NULL || w == NULL || h == NULL)
        return ks_fail(KS_ERR_INVALID, "renderer: read_image with a NULL argument");
    *rgba = NULL;
    if (r->img_w <= 0) return ks_fail(KS_ERR_INVALID, "renderer: no picture set yet");
    /* the texture itself, through its framebuffer attachment: byte-exact with the PBO */
    KS_TRY(read_fbo(r->image_fbo, r->img_w, r->img_h, rgba, "picture"));
    *w = r->img_w;
    *h = r->img_h;
    return KS_OK;
}

void ks_renderer_set_one_to_one(ks_renderer *r, int on)
{
    if (r) r->one_to_one = on != 0;
}

int ks_renderer_picture_rect(const ks_renderer *r, float rect[4])
{
    if (r == NULL || !(r->pic_w > 0.0f) || !(r->pic_h > 0.0f)) return 0;
    rect[0] = r->pic_x;
    rect[1] = r->pic_y;
    rect[2] = r->pic_w;
    rect[3] = r->pic_h;
    return 1;
}

int ks_renderer_pick(const ks_renderer *r, double fb_x, double fb_y, int *a, int *b)
{
    if (r == NULL || !(r->pic_w > 0.0f) || !(r->pic_h > 0.0f)) return 0;
    if (r->one_to_one) {
        /* whole pixels: no scale to round */
        const double fa = floor(fb_x - r->pic_x), fb = floor(fb_y - r->pic_y);
        if (!(fa >= 0.0 && fa < r->pic_w && fb >= 0.0 && fb < r->pic_h)) return 0;
        if (a) *a = (int)fa;
        if (b) *b = (int)fb;
        return 1;
    }
    double u = (fb_x - r->pic_x) / r->pic_w, v = (fb_y - r->pic_y) / r->pic_h;
    if (!(u >= 0.0 && u < 1.0 && v >= 0.0 && v < 1.0)) return 0;
    int ia = (int)(u * r->pic_img_w), ib = (int)(v * r->pic_img_h);
    if (ia > r->pic_img_w - 1) ia = r->pic_img_w - 1;
    if (ib > r->pic_img_h - 1) ib = r->pic_img_h - 1;
    if (a) *a = ia;
    if (b) *b = ib;
    return 1;
}
