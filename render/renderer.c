/* The frame: picture texture (from the PBO), colour bar and overlay, composed
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
#include "text.h"

enum {
    KS_MAX_TICKS = 16,
    KS_PLOT_MAX_SEGMENTS = 2048, /* the curve is thinned to about two points per pixel */
};

struct ks_renderer {
    size_t max_pixels;       /* PBO capacity in RGBA8 pixels */
    GLuint pbo;              /* GL_PIXEL_UNPACK_BUFFER, max_pixels * 4 bytes */
    int pbo_mapped;          /* 1 between map_pbo and unmap_pbo */

    GLuint image_tex;        /* RGBA8 picture, nearest filtering */
    int img_w, img_h;        /* picture size from set_image; 0 until then */
    GLuint image_fbo;        /* image_tex attached: read_image reads it directly */

    GLuint cmap_tex;         /* 256 x 1 RGBA8 colormap for the bar */
    int cmap_loaded;         /* ks_colormap + 1 held in cmap_tex; 0: none */

    GLuint fbo, fbo_rb;      /* composed frame, RGBA8 renderbuffer */
    int fbo_w, fbo_h;        /* its size; 0 until the first draw */

    GLuint vao, vbo;         /* one vertex format (ks_vertex) for every draw */
    GLuint prog_image, prog_colorbar, prog_solid;
    GLint vp_image, vp_colorbar, vp_solid; /* u_viewport locations */

    float pic_x, pic_y, pic_w, pic_h; /* last draw's picture rectangle, fb pixels */
    int pic_img_w, pic_img_h;         /* picture size at that draw */

    ks_vertex_list list;     /* scratch geometry, reused every frame */
};

/* ---- colours (straight RGBA8) -------------------------------------------- */
static const unsigned char COL_PANEL[4] = {0, 0, 0, 170};
static const unsigned char COL_TEXT[4] = {236, 236, 236, 255};
static const unsigned char COL_TABLE[4] = {196, 226, 255, 255};
static const unsigned char COL_LABEL[4] = {210, 210, 210, 255};
static const unsigned char COL_BANNER[4] = {178, 28, 28, 240};
static const unsigned char COL_WHITE[4] = {255, 255, 255, 255};
static const unsigned char COL_AXIS[4] = {160, 160, 168, 255};
static const unsigned char COL_CURVE[4] = {255, 196, 64, 255};
static const unsigned char COL_HELP_BG[4] = {18, 18, 24, 235};
static const unsigned char COL_HELP_EDGE[4] = {120, 120, 136, 255};
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
    GLint tex = glGetUniformLocation(*prog, strcmp(frag, "colorbar_frag") == 0 ? "u_cmap" : "u_tex");
    if (tex >= 0) glUniform1i(tex, 0);
    glUseProgram(0);
    return ks_gl_check("setting up shader program");
}

static ks_status renderer_init(ks_renderer *r)
{
    glGenBuffers(1, &r->pbo);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)(r->max_pixels * 4), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    KS_TRY(ks_gl_check("creating the pixel buffer object"));

    glGenTextures(1, &r->image_tex);
    setup_texture(r->image_tex);
    glGenTextures(1, &r->cmap_tex);
    setup_texture(r->cmap_tex);
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
    KS_TRY(make_program("colorbar_frag", &r->prog_colorbar, &r->vp_colorbar));
    KS_TRY(make_program("solid_frag", &r->prog_solid, &r->vp_solid));
    return KS_OK;
}

ks_status ks_renderer_create(size_t max_pixels, ks_renderer **out)
{
    if (out == NULL) return ks_fail(KS_ERR_INVALID, "renderer: no output pointer");
    *out = NULL;
    if (max_pixels == 0 || max_pixels > (size_t)PTRDIFF_MAX / 4)
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
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo);
        glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    }
    /* deleting name 0 is a no-op, so a half-built renderer is fine here */
    glDeleteProgram(r->prog_image);
    glDeleteProgram(r->prog_colorbar);
    glDeleteProgram(r->prog_solid);
    glDeleteBuffers(1, &r->vbo);
    glDeleteVertexArrays(1, &r->vao);
    glDeleteFramebuffers(1, &r->fbo);
    glDeleteRenderbuffers(1, &r->fbo_rb);
    glDeleteFramebuffers(1, &r->image_fbo);
    glDeleteTextures(1, &r->cmap_tex);
    glDeleteTextures(1, &r->image_tex);
    glDeleteBuffers(1, &r->pbo);
    ks_vlist_free(&r->list);
    free(r);
}

unsigned int ks_renderer_pbo(const ks_renderer *r) { return r ? r->pbo : 0; }

ks_status ks_renderer_map_pbo(ks_renderer *r, void **ptr)
{
    if (r == NULL || ptr == NULL) return ks_fail(KS_ERR_INVALID, "renderer: map_pbo without renderer");
    *ptr = NULL;
    if (r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: pixel buffer is already mapped");
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo);
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
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo);
    GLboolean ok = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    r->pbo_mapped = 0;
    KS_TRY(ks_gl_check("renderer: glUnmapBuffer on the pixel buffer"));
    /* GL_FALSE: the store was lost (e.g. a mode switch) while mapped */
    if (!ok) return ks_fail(KS_ERR_GL, "renderer: pixel buffer contents lost while mapped; write it again");
    return KS_OK;
}

ks_status ks_renderer_set_image(ks_renderer *r, int w, int h)
{
    if (r == NULL) return ks_fail(KS_ERR_INVALID, "renderer: set_image without renderer");
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
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r->pbo);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, (const void *)0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    KS_TRY(ks_gl_check("renderer: copying the pixel buffer into the picture texture"));
    r->img_w = w;
    r->img_h = h;
    return KS_OK;
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

static void ensure_colormap(ks_renderer *r, ks_colormap cmap)
{
    if ((int)cmap < 0 || cmap >= KS_CMAP_NUM) cmap = KS_CMAP_DEFAULT;
    if (r->cmap_loaded == (int)cmap + 1) return;
    unsigned char table[256][4];
    ks_colormap_table_rgba(cmap, table);
    glBindTexture(GL_TEXTURE_2D, r->cmap_tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, table);
    glBindTexture(GL_TEXTURE_2D, 0);
    r->cmap_loaded = (int)cmap + 1;
}

/* "%.3g" with compact exponents: 2e-05 -> 2e-5, 1e+06 -> 1e6. */
static void format_value(char *buf, size_t n, double v)
{
    char tmp[48];
    if (v == 0.0) v = 0.0; /* no "-0" */
    snprintf(tmp, sizeof tmp, "%.3g", v);
    size_t o = 0;
    for (size_t i = 0; tmp[i] != '\0' && o + 1 < n; ++i) {
        buf[o++] = tmp[i];
        if (tmp[i] == 'e') {
            if (tmp[i + 1] == '+') ++i;
            else if (tmp[i + 1] == '-' && o + 1 < n) buf[o++] = tmp[++i];
            while (tmp[i + 1] == '0' && tmp[i + 2] != '\0') ++i;
        }
    }
    buf[o] = '\0';
}

typedef struct layout {
    int s;        /* pixels per font unit */
    float cw, lh; /* character cell width, line pitch (pixels) */
    float m, pad; /* outer margin, panel padding (pixels) */
} layout;

static float text_block_h(const layout *L, int lines)
{
    /* glyphs of the last line reach about 9 font units below its top */
    return lines > 0 ? (float)(lines - 1) * L->lh + 9.0f * (float)L->s : 0.0f;
}

/* Dark panel with text; returns its height. (x, top) is the panel's top-left. */
static float text_panel(ks_vertex_list *l, const layout *L, float x, float top, const char *text,
                        const unsigned char bg[4], const unsigned char fg[4])
{
    int cols = 0, lines = 0;
    ks_text_measure(text, &cols, &lines);
    if (lines == 0) return 0.0f;
    float w = (float)cols * L->cw + 2.0f * L->pad, h = text_block_h(L, lines) + 2.0f * L->pad;
    ks_vlist_rect(l, x, top - h, w, h, bg);
    ks_text_draw(l, x + L->pad, top - L->pad, text, L->s, fg);
    return h;
}

static float text_width(const layout *L, const char *s)
{
    int cols = 0;
    ks_text_measure(s, &cols, NULL);
    return (float)cols * L->cw;
}

/* Colour bar geometry and tick labels; the gradient quad goes to r->list. */
typedef struct colorbar_layout {
    int on;
    float x, y, w, h;   /* gradient rectangle */
    float column_w;     /* width reserved at the right edge of the frame */
    double ticks[KS_MAX_TICKS];
    char labels[KS_MAX_TICKS][24];
    int nticks;
    float label_w;
} colorbar_layout;

static void colorbar_plan(colorbar_layout *cb, const layout *L, const ks_overlay *ov, int fb_w,
                          float top)
{
    memset(cb, 0, sizeof *cb);
    cb->nticks = ks_nice_ticks(ov->lo, ov->hi, cb->ticks, KS_MAX_TICKS);
    for (int i = 0; i < cb->nticks; ++i) {
        format_value(cb->labels[i], sizeof cb->labels[i], cb->ticks[i]);
        float w = text_width(L, cb->labels[i]);
        if (w > cb->label_w) cb->label_w = w;
    }
    cb->w = 10.0f * (float)L->s;
    /* bar frame, tick mark, a character's gap (so a tick never reads as a minus), labels */
    cb->column_w = L->m + cb->w + (float)L->s + 3.0f * (float)L->s + L->cw + cb->label_w + L->m;
    cb->x = (float)fb_w - cb->column_w + L->m;
    cb->y = L->m + 0.5f * L->lh;
    float y1 = top - L->m - L->lh - L->pad; /* room for the label above */
    cb->h = floorf(y1 - cb->y);
    /* too small a frame for a readable bar: leave it out */
    cb->on = cb->h >= 4.0f * L->lh && cb->column_w < 0.5f * (float)fb_w;
    if (!cb->on) cb->column_w = 0.0f;
}

static void colorbar_overlay(ks_vertex_list *l, const layout *L, const colorbar_layout *cb,
                             const ks_overlay *ov, int fb_w)
{
    float s = (float)L->s;
    ks_vlist_frame(l, cb->x - s, cb->y - s, cb->w + 2 * s, cb->h + 2 * s, s, COL_AXIS);
    double span = (double)ov->hi - (double)ov->lo;
    /* labels only where they do not run into each other */
    int every = 1;
    if (cb->nticks > 1) {
        while (every < cb->nticks && cb->h / (float)(cb->nticks - 1) * (float)every < 1.1f * L->lh) ++every;
    }
    for (int i = 0; i < cb->nticks; ++i) {
        /* empty range: every value takes entry 0 (ks_colormap_inv_span), the bottom */
        double t = fabs(span) > 0 ? (cb->ticks[i] - ov->lo) / span : 0.0;
        if (t < 0) t = 0;
        if (t > 1) t = 1;
        float y = floorf(cb->y + (float)t * (cb->h - s));
        ks_vlist_rect(l, cb->x + cb->w + s, y, 3.0f * s, s, COL_AXIS);
        if (i % every != 0 && i != cb->nticks - 1) continue;
        ks_text_draw(l, cb->x + cb->w + 4.0f * s + L->cw, floorf(y + 4.0f * s), cb->labels[i], L->s, COL_LABEL);
    }
    const char *label = ov->colorbar_label;
    if (label != NULL && label[0] != '\0') {
        float w = text_width(L, label);
        float x = (float)fb_w - L->m - w;
        if (x > cb->x) x = cb->x; /* left-align with the bar when it fits */
        float top = cb->y + cb->h + L->pad + text_block_h(L, 1) + s;
        ks_vlist_rect(l, x - L->pad, top - text_block_h(L, 1) - L->pad, w + 2 * L->pad,
                      text_block_h(L, 1) + 2 * L->pad, COL_PANEL);
        ks_text_draw(l, x, top, label, L->s, COL_TEXT);
    }
}

/* fill: take the whole width given (the dashboard's left column). */
static void plot_overlay(ks_vertex_list *l, const layout *L, const ks_overlay *ov, float area_w,
                         float avail_top, int fill)
{
    const float *px = ov->plot_x, *py = ov->plot_y;
    int n = ov->plot_n;
    float xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(px[i]) || !isfinite(py[i])) continue;
        xmin = fminf(xmin, px[i]);
        xmax = fmaxf(xmax, px[i]);
        ymin = fminf(ymin, py[i]);
        ymax = fmaxf(ymax, py[i]);
    }
    if (!(xmin <= xmax)) return; /* no finite point */
    float s = (float)L->s;
    float w = fill ? area_w : fminf(fmaxf(0.32f * area_w, 260.0f), 520.0f);
    float h = fminf(fmaxf(0.30f * avail_top, 140.0f), 280.0f);
    w = fminf(w, area_w - 2 * L->m);
    h = fminf(h, avail_top - 2 * L->m);
    if (w < 160.0f || h < 4.0f * L->lh) return;
    float x0 = L->m, y0 = L->m;
    ks_vlist_rect(l, x0, y0, w, h, COL_PANEL);

    char ylo[24], yhi[24], xlo[24], xhi[24];
    format_value(ylo, sizeof ylo, ymin);
    format_value(yhi, sizeof yhi, ymax);
    snprintf(xlo, sizeof xlo, "%.6g", xmin);
    snprintf(xhi, sizeof xhi, "%.6g", xmax);
    float ylab_w = fmaxf(text_width(L, ylo), text_width(L, yhi));
    float ax = x0 + L->pad + ylab_w + 2 * s, ax1 = x0 + w - L->pad - 0.5f * text_width(L, xhi);
    float ay = y0 + L->pad + L->lh, ay1 = y0 + h - L->pad - L->lh - s;
    if (ax1 - ax < 40.0f || ay1 - ay < 20.0f) return;
    if (ov->plot_title != NULL)
        ks_text_draw(l, x0 + L->pad, y0 + h - L->pad, ov->plot_title, L->s, COL_TEXT);
    ks_vlist_frame(l, ax, ay, ax1 - ax, ay1 - ay, 1.0f, COL_AXIS);
    ks_text_draw(l, ax - 2 * s - text_width(L, yhi), ay1 + 4 * s, yhi, L->s, COL_LABEL);
    ks_text_draw(l, ax - 2 * s - text_width(L, ylo), ay + 4 * s, ylo, L->s, COL_LABEL);
    ks_text_draw(l, ax, ay - 3 * s, xlo, L->s, COL_LABEL);
    ks_text_draw(l, ax1 - text_width(L, xhi), ay - 3 * s, xhi, L->s, COL_LABEL);

    /* inset so that a flat curve or the extremes stay inside the box */
    float ix = ax + 2 * s, ix1 = ax1 - 2 * s, iy = ay + 2 * s, iy1 = ay1 - 2 * s;
    float sx = xmax > xmin ? (ix1 - ix) / (xmax - xmin) : 0.0f;
    float sy = ymax > ymin ? (iy1 - iy) / (ymax - ymin) : 0.0f;
    float cx = xmax > xmin ? 0.0f : 0.5f * (ix1 - ix), cy = ymax > ymin ? 0.0f : 0.5f * (iy1 - iy);
    int stride = 1;
    while (n / stride > KS_PLOT_MAX_SEGMENTS || (float)(n / stride) > 2.0f * (ix1 - ix)) ++stride;
    float lx = 0, ly = 0;
    int have = 0;
    for (int i = 0; i < n; i += stride) {
        if (i + stride >= n) i = n - 1; /* always end on the last point */
        if (!isfinite(px[i]) || !isfinite(py[i])) {
            have = 0;
            continue;
        }
        float x = ix + cx + (px[i] - xmin) * sx, y = iy + cy + (py[i] - ymin) * sy;
        if (have) ks_vlist_line(l, lx, ly, x, y, s, COL_CURVE);
        lx = x;
        ly = y;
        have = 1;
    }
}

static void help_overlay(ks_vertex_list *l, const layout *L, const char *help, int fb_w, int fb_h)
{
    int cols = 0, lines = 0;
    ks_text_measure(help, &cols, &lines);
    if (lines == 0) return;
    float s = (float)L->s;
    float w = (float)cols * L->cw + 4 * L->pad, h = text_block_h(L, lines) + 4 * L->pad;
    float x = floorf(0.5f * ((float)fb_w - w)), y = floorf(0.5f * ((float)fb_h - h));
    if (x < 0) x = 0;
    if (y + h > (float)fb_h) y = (float)fb_h - h; /* keep the first lines visible */
    ks_vlist_rect(l, x, y, w, h, COL_HELP_BG);
    ks_vlist_frame(l, x, y, w, h, s, COL_HELP_EDGE);
    ks_text_draw(l, x + 2 * L->pad, y + h - 2 * L->pad, help, L->s, COL_TEXT);
}

static void hover_overlay(ks_vertex_list *l, const layout *L, const ks_overlay *ov, int fb_w, int fb_h)
{
    int cols = 0, lines = 0;
    ks_text_measure(ov->hover, &cols, &lines);
    if (lines == 0) return;
    float w = (float)cols * L->cw + 2 * L->pad, h = text_block_h(L, lines) + 2 * L->pad;
    float off = 6.0f * (float)L->s;
    float x = floorf((float)ov->cursor_x) + off, top = floorf((float)ov->cursor_y) - off;
    /* below-right of the cursor, flipped where it would leave the frame */
    if (x + w > (float)fb_w) x = floorf((float)ov->cursor_x) - off - w;
    if (top - h < 0) top = floorf((float)ov->cursor_y) + off + h;
    if (x < 0) x = 0;
    if (top > (float)fb_h) top = (float)fb_h;
    text_panel(l, L, x, top, ov->hover, COL_PANEL, COL_TEXT);
}

/* Banner across the top; returns its height. */
static float banner_overlay(ks_vertex_list *l, const layout *L, const char *msg, int fb_w, int fb_h)
{
    int lines = 0;
    ks_text_measure(msg, NULL, &lines);
    if (lines == 0) return 0.0f;
    float h = text_block_h(L, lines) + 2 * L->pad;
    ks_vlist_rect(l, 0, (float)fb_h - h, (float)fb_w, h, COL_BANNER);
    ks_text_draw(l, L->m + L->pad, (float)fb_h - L->pad, msg, L->s, COL_WHITE);
    return h;
}

static ks_status compose(ks_renderer *r, int fb_w, int fb_h, const ks_overlay *ov)
{
    layout L;
    /* integer glyph scale: crisp text, readable at 1280 x 800, compact on tiny frames */
    L.s = (fb_w >= 2400 && fb_h >= 1500) ? 3 : (fb_w >= 640 && fb_h >= 400) ? 2 : 1;
    L.cw = (float)(KS_TEXT_CELL_W * L.s);
    L.lh = (float)(KS_TEXT_LINE_H * L.s);
    L.m = (float)(4 * L.s);
    L.pad = (float)(3 * L.s);
    int visible = ov != NULL && ov->visible;
    ks_vertex_list *l = &r->list;
    ks_vlist_clear(l);

    /* the banner sits above everything else on the right and left */
    int msg_lines = 0;
    if (ov != NULL) ks_text_measure(ov->message, NULL, &msg_lines);
    float top = (float)fb_h - (msg_lines > 0 ? text_block_h(&L, msg_lines) + 2 * L.pad : 0.0f);

    colorbar_layout cb = {0};
    if (visible && ov->colorbar) colorbar_plan(&cb, &L, ov, fb_w, top);
    float area_w = (float)fb_w - cb.column_w;

    /* Dashboard layout (a field with a colour bar): the text panels get a
     * column on the left and the picture the space between it and the bar,
     * so no number covers the field, as long as that leaves the picture at
     * least 30% of the width. Otherwise (e.g. the spheres picture, which is
     * the window) the panels float over the picture. */
    float left = 0.0f;
    if (visible && ov->colorbar) {
        float panel = text_width(&L, ov->text);
        if (ov->table != NULL) panel = fmaxf(panel, text_width(&L, ov->table));
        panel += 2.0f * (L.pad + L.m);
        if (area_w - panel >= 0.3f * (float)fb_w) left = panel;
    }

    /* picture: fit, keep aspect, centre */
    r->pic_w = r->pic_h = 0.0f;
    r->pic_img_w = r->img_w;
    r->pic_img_h = r->img_h;
    if (r->img_w > 0 && area_w - left >= 1.0f) {
        float sc = fminf((area_w - left) / (float)r->img_w, (float)fb_h / (float)r->img_h);
        float w = fmaxf(1.0f, roundf((float)r->img_w * sc)), h = fmaxf(1.0f, roundf((float)r->img_h * sc));
        r->pic_x = left + floorf(0.5f * (area_w - left - w));
        r->pic_y = floorf(0.5f * ((float)fb_h - h));
        r->pic_w = w;
        r->pic_h = h;
        ks_vlist_rect_uv(l, r->pic_x, r->pic_y, w, h, 0, 0, 1, 1, COL_WHITE);
        KS_TRY(draw_list(r, r->prog_image, r->vp_image, r->image_tex, 0));
    }

    if (cb.on) {
        ensure_colormap(r, ov->cmap);
        ks_vlist_rect_uv(l, cb.x, cb.y, cb.w, cb.h, 0, 0, 1, 1, COL_WHITE);
        KS_TRY(draw_list(r, r->prog_colorbar, r->vp_colorbar, r->cmap_tex, 0));
    }

    if (visible) {
        float y = top - L.m;
        float h = text_panel(l, &L, L.m, y, ov->text, COL_PANEL, COL_TEXT);
        if (h > 0) y -= h + L.m;
        if (ov->table != NULL && ov->table[0] != '\0') {
            char *aligned = strchr(ov->table, '\t') ? ks_text_align_columns(ov->table) : NULL;
            h = text_panel(l, &L, L.m, y, aligned ? aligned : ov->table, COL_PANEL, COL_TABLE);
            free(aligned);
            if (h > 0) y -= h + L.m;
        }
        if (cb.on) colorbar_overlay(l, &L, &cb, ov, fb_w);
        if (ov->plot_n > 1 && ov->plot_x != NULL && ov->plot_y != NULL)
            plot_overlay(l, &L, ov, left > 0.0f ? left - L.m : area_w, y, left > 0.0f);
        if (ov->hover != NULL) hover_overlay(l, &L, ov, fb_w, fb_h);
    }
    if (ov != NULL && msg_lines > 0) banner_overlay(l, &L, ov->message, fb_w, fb_h);
    if (ov != NULL && ov->help != NULL) help_overlay(l, &L, ov->help, fb_w, fb_h);
    return draw_list(r, r->prog_solid, r->vp_solid, 0, 1);
}

ks_status ks_renderer_draw(ks_renderer *r, int fb_w, int fb_h, const ks_overlay *ov)
{
    if (r == NULL) return ks_fail(KS_ERR_INVALID, "renderer: draw without renderer");
    if (r->pbo_mapped) return ks_fail(KS_ERR_INVALID, "renderer: draw while the pixel buffer is mapped");
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
    ks_status st = compose(r, fb_w, fb_h, ov);
    glDisable(GL_BLEND);
    if (st != KS_OK) {
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        return st;
    }
    KS_TRY(ks_gl_check("renderer: drawing the frame"));

    /* headless (surfaceless) contexts have no default framebuffer to show */
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo);
        glBlitFramebuffer(0, 0, fb_w, fb_h, 0, 0, fb_w, fb_h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
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

int ks_renderer_pick(const ks_renderer *r, double fb_x, double fb_y, int *a, int *b)
{
    if (r == NULL || !(r->pic_w > 0.0f) || !(r->pic_h > 0.0f)) return 0;
    double u = (fb_x - r->pic_x) / r->pic_w, v = (fb_y - r->pic_y) / r->pic_h;
    if (!(u >= 0.0 && u < 1.0 && v >= 0.0 && v < 1.0)) return 0;
    int ia = (int)(u * r->pic_img_w), ib = (int)(v * r->pic_img_h);
    if (ia > r->pic_img_w - 1) ia = r->pic_img_w - 1;
    if (ib > r->pic_img_h - 1) ib = r->pic_img_h - 1;
    if (a) *a = ia;
    if (b) *b = ib;
    return 1;
}
