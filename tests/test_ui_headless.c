/* The ImGui panels drawn headless (EGL; Mesa llvmpipe here) at 800x600 and
 * 1920x1080 and sizes between: every panel inside the frame, no two panels
 * overlapping (ImGui's own window rectangles), the picture beside them, and
 * the saved frame showing text where the panels are. Exits 77 without EGL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/image_io.h"
#include "render/renderer.h"
#include "render/ui.h"
#include "render/view.h"
#include "render/window.h"


static ks_window *g_win;
static ks_renderer *g_r;
static ks_ui *g_ui;
static ks_view g_view;

static void check_ok(ks_status st, const char *what)
{
    if (st != KS_OK) fail_msg("%s: %s: %s", what, ks_status_name(st), ks_error_message());
}

/* A full view: what a laplace3d frame on a GPU shows, plus an A/B table and a message. */
static void fill_view(ks_view *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->scene, sizeof v->scene, "laplace3d");
    ks_vcontrol *c = ks_view_control(v, "kernel", 0, KS_KEY_TAB);
    const char *kernels[] = {"tblock", "regq", "naive", "smem"};
    for (int i = 0; i < 4; ++i) snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s", kernels[i]);
    snprintf(c->value, sizeof c->value, "tblock");
    c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
    snprintf(c->value, sizeof c->value, "32x8x4");
    c = ks_view_control(v, "iterations/frame", KS_KEY_MINUS, KS_KEY_PLUS);
    snprintf(c->value, sizeof c->value, "20");
    c = ks_view_control(v, "colormap", 0, 'C');
    snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "viridis");
    snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "inferno");
    snprintf(c->value, sizeof c->value, "viridis");
    ks_view_text(v, KS_VGROUP_KERNEL, "variant", "temporally blocked, 4 iterations per launch in shared memory");
    ks_view_num(v, KS_VGROUP_KERNEL, "registers", 40, "/thread", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_KERNEL, "occupancy", 1.0, "", KS_VFMT_PCT);
    ks_view_num(v, KS_VGROUP_KERNEL, "T_eff", 4321.0, "GB/s", KS_VFMT_INT);
    for (int i = 0; i < 12; ++i) ks_view_num(v, KS_VGROUP_SCENE, "some field", 1.0 / (i + 1), "ms", KS_VFMT_F4);
    ks_view_text(v, KS_VGROUP_FRAME, "device", "NVIDIA H200 with a rather long device name");
    const char *stages[] = {"frame", "interop map", "interop unmap", "jacobi", "residual", "slice+colormap"};
    for (int i = 0; i < 6; ++i) {
        snprintf(v->stages[i].name, sizeof v->stages[i].name, "%s", stages[i]);
        v->stages[i].median_ms = 1.5 * (i + 1);
        v->stages[i].min_ms = 1.0 * (i + 1);
        v->stages[i].samples = 10;
    }
    v->nstages = 6;
    v->table.ncols = 3;
    snprintf(v->table.title, sizeof v->table.title, "every variant at 4096 spheres (medians)");
    const char *cols[] = {"render", "upload", "vs global"};
    for (int k = 0; k < 3; ++k) snprintf(v->table.cols[k], sizeof v->table.cols[k], "%s", cols[k]);
    v->table.nrows = 5;
    for (int r = 0; r < 5; ++r) {
        snprintf(v->table.rows[r].label, sizeof v->table.rows[r].label, "variant%d", r);
        for (int k = 0; k < 3; ++k) v->table.rows[r].cell[k] = 0.25 * (r + k + 1);
    }
    snprintf(v->table.rows[3].note, sizeof v->table.rows[3].note, "n/a: holds at most 4096 spheres");
    v->colorbar.on = 1;
    v->colorbar.cmap = KS_CMAP_INFERNO;
    v->colorbar.lo = -3e-5;
    v->colorbar.hi = 2e-5;
    snprintf(v->colorbar.label, sizeof v->colorbar.label, "u (inferno, auto range)");
    v->colorbar.hist_n = 64;
    v->colorbar.hist_lo = v->colorbar.lo;
    v->colorbar.hist_hi = v->colorbar.hi;
    for (int b = 0; b < 64; ++b) v->colorbar.hist[b] = b == 0 ? 5000.0 : (double)(b * (64 - b));
    snprintf(v->colorbar.hist_what, sizeof v->colorbar.hist_what, "whole field, GPU");
    v->plot.n = 100;
    for (int i = 0; i < 100; ++i) {
        v->plot.x[i] = (float)(20 * i);
        v->plot.y[i] = -1.0f - 0.03f * (float)i;
    }
    snprintf(v->plot.title, sizeof v->plot.title, "log10 residual vs iterations");
    /* three variants on the roofline, the second in use, one without flops */
    v->roof.on = 1;
    v->roof.peak_gbs = 3000.0;
    v->roof.peak_gflops = 50000.0;
    snprintf(v->roof.what, sizeof v->roof.what, "one Jacobi iteration");
    v->roof.n = 3;
    v->roof.current = 1;
    const char *names[3] = {"naive", "regq", "count"};
    const double fl[3] = {7e8, 7e8, 0.0}, by[3] = {8e8, 8e8, 1e8}, ms[3] = {0.9, 0.3, 0.05};
    for (int i = 0; i < 3; ++i) {
        snprintf(v->roof.pts[i].name, sizeof v->roof.pts[i].name, "%s", names[i]);
        v->roof.pts[i].flops = fl[i];
        v->roof.pts[i].bytes = by[i];
        v->roof.pts[i].ms = ms[i];
    }
    snprintf(v->message, sizeof v->message, "block 64x16x1 refused: too many threads for this kernel");
    v->help_global = "Keys\n  H  help\n  Space  pause\n  N  step\n  O  panels\n  S / P  save\n  F  picture\n  Q  quit\n";
    v->help_scene = "Laplace scene\n  Tab  next kernel\n  [ / ]  block\n  + / -  iterations\n  X Y Z  axis\n";
}

static void upload_picture(void)
{
    void *p = NULL;
    check_ok(ks_renderer_map_pbo(g_r, &p), "map");
    unsigned char *q = p;
    for (int i = 0; i < 64 * 64; ++i) {
        q[4 * i + 0] = 40;
        q[4 * i + 1] = (unsigned char)(i % 64 * 3);
        q[4 * i + 2] = 120;
        q[4 * i + 3] = 255;
    }
    check_ok(ks_renderer_unmap_pbo(g_r), "unmap");
    check_ok(ks_renderer_set_image(g_r, 64, 64), "set_image");
}

/* Draws `frames` frames (the layout follows what the panels measured) and
 * returns the last one (top-down RGBA, malloc'd). */
static unsigned char *draw(int w, int h, int visible, int help, int frames)
{
    for (int i = 0; i < frames; ++i) {
        float area[4];
        ks_ui_picture_area(g_ui, w, h, visible, area);
        check_ok(ks_renderer_begin(g_r, w, h, area), "begin");
        float pic[4]; /* as the display does: the view's captions go where the picture was drawn */
        ks_ui_set_picture_rect(g_ui, ks_renderer_picture_rect(g_r, pic) ? pic : NULL);
        ks_ui_actions act;
        check_ok(ks_ui_frame(g_ui, &g_view, w, h, visible, help, &act), "ui frame");
        assert_int_equal(act.nkeys, 0); /* no mouse headless: nothing asked for */
        check_ok(ks_renderer_end(g_r), "end");
    }
    unsigned char *f = NULL;
    int fw = 0, fh = 0;
    check_ok(ks_renderer_read_frame(g_r, &f, &fw, &fh), "read_frame");
    assert_int_equal(fw, w);
    assert_int_equal(fh, h);
    return f;
}

static int overlap(const ks_ui_rect *a, const ks_ui_rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* Panels inside the frame, not overlapping, each showing more than a flat fill. */
static void check_layout(int w, int h, const unsigned char *f, int expect_min)
{
    ks_ui_rect r[KS_UI_MAX_PANELS];
    int n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
    assert_true(n >= expect_min);
    for (int i = 0; i < n; ++i) {
        if (!(r[i].x >= 0 && r[i].y >= 0 && r[i].x + r[i].w <= (float)w + 0.5f && r[i].y + r[i].h <= (float)h + 0.5f))
            fail_msg("%dx%d: panel '%s' at %.0f,%.0f %.0fx%.0f leaves the frame", w, h, r[i].name, r[i].x, r[i].y,
                     r[i].w, r[i].h);
        assert_true(r[i].w > 50 && r[i].h > 10);
        for (int j = 0; j < i; ++j)
            if (overlap(&r[i], &r[j]))
                fail_msg("%dx%d: panels '%s' and '%s' overlap", w, h, r[i].name, r[j].name);
        /* text drawn: light pixels on the dark panel in its title bar and body */
        int light = 0;
        for (int y = (int)r[i].y; y < (int)(r[i].y + r[i].h); ++y)
            for (int x = (int)r[i].x; x < (int)(r[i].x + r[i].w); ++x) {
                const unsigned char *p = f + ((size_t)y * (size_t)w + (size_t)x) * 4;
                if (p[0] > 180 && p[1] > 180 && p[2] > 180) ++light;
                assert_int_equal(p[3], 255); /* saved frames stay opaque */
            }
        if (light < 40) fail_msg("%dx%d: panel '%s' shows no text (%d light pixels)", w, h, r[i].name, light);
    }
}

static void snapshot(const char *name, const unsigned char *f, int w, int h)
{
    const char *dir = getenv("KS_RENDER_SNAPSHOT_DIR");
    if (dir == NULL || dir[0] == '\0') return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    check_ok(ks_image_write(path, KS_FMT_PNG, f, w, h), "snapshot");
}

/* Height of the roofline panel of the last frame (its rectangle into r). */
static float roof_rect(ks_ui_rect *out)
{
    ks_ui_rect r[KS_UI_MAX_PANELS];
    int n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
    for (int i = 0; i < n; ++i)
        if (strncmp(r[i].name, "Roofline", 8) == 0) {
            if (out) *out = r[i];
            return r[i].h;
        }
    fail_msg("no roofline panel");
    return 0.0f;
}

/* Pixels of the ceiling colour (amber) inside r. */
static int ceiling_pixels(const unsigned char *f, int w, const ks_ui_rect *r)
{
    int n = 0;
    for (int y = (int)r->y; y < (int)(r->y + r->h); ++y)
        for (int x = (int)r->x; x < (int)(r->x + r->w); ++x) {
            const unsigned char *p = f + ((size_t)y * (size_t)w + (size_t)x) * 4;
            if (p[0] > 200 && p[1] > 160 && p[1] < 225 && p[2] < 120) ++n;
        }
    return n;
}

static void test_sizes(void **state)
{
    (void)state;
    const int sizes[][2] = {{800, 600}, {1920, 1080}, {1024, 768}, {1280, 800}, {2560, 1440}, {800, 1200}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        const int w = sizes[i][0], h = sizes[i][1];
        g_view.roof.show = 0;
        unsigned char *f = draw(w, h, 1, 0, 3);
        /* 7 panels (the roofline and the help folded) + the message banner */
        check_layout(w, h, f, 8);
        const float folded = roof_rect(NULL);
        /* the picture sits left of the panels: its colour at the left middle */
        float area[4];
        ks_ui_picture_area(g_ui, w, h, 1, area);
        assert_true(area[2] >= 0.5f * (float)w);
        int a = -1, b = -1;
        assert_true(ks_renderer_pick(g_r, 0.5 * area[2], 0.5 * h, &a, &b));
        const unsigned char *p = f + ((size_t)(h / 2) * (size_t)w + (size_t)(area[2] / 2)) * 4;
        assert_int_equal(p[0], 40);
        assert_int_equal(p[2], 120);
        char name[64];
        snprintf(name, sizeof name, "ui_%dx%d", w, h);
        snapshot(name, f, w, h);
        free(f);
        /* help open: still inside and apart */
        f = draw(w, h, 1, 1, 3);
        check_layout(w, h, f, 8);
        snprintf(name, sizeof name, "ui_%dx%d_help", w, h);
        snapshot(name, f, w, h);
        free(f);
        /* the roofline open (G): taller than its title, ceilings drawn, the rest still fits */
        g_view.roof.show = 1;
        f = draw(w, h, 1, 0, 3);
        snprintf(name, sizeof name, "ui_%dx%d_roofline", w, h);
        snapshot(name, f, w, h);
        check_layout(w, h, f, 8);
        ks_ui_rect rr = {0};
        assert_true(roof_rect(&rr) > folded + 20.0f);
        assert_true(ceiling_pixels(f, w, &rr) > 20);
        free(f);
        f = draw(w, h, 1, 1, 3);
        check_layout(w, h, f, 8);
        free(f);
        g_view.roof.show = 0;
    }
}

static void test_hidden(void **state)
{
    (void)state;
    /* panels off: the picture takes the frame, only the banner remains */
    unsigned char *f = draw(800, 600, 0, 0, 2);
    ks_ui_rect r[KS_UI_MAX_PANELS];
    int n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
    assert_int_equal(n, 1);
    assert_string_equal(r[0].name, "message");
    float area[4];
    ks_ui_picture_area(g_ui, 800, 600, 0, area);
    assert_true(area[2] == 800.0f && area[3] == 600.0f);
    free(f);
    /* panels off, help on: the help panel and the banner */
    f = draw(800, 600, 0, 1, 2);
    n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
    assert_int_equal(n, 2);
    check_layout(800, 600, f, 2);
    free(f);
    /* an empty view: no panel asks for anything it lacks */
    static ks_view empty;
    memset(&empty, 0, sizeof empty);
    ks_ui_actions act;
    check_ok(ks_renderer_begin(g_r, 800, 600, NULL), "begin");
    check_ok(ks_ui_frame(g_ui, &empty, 800, 600, 1, 0, &act), "empty view");
    check_ok(ks_renderer_end(g_r), "end");
    n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
    assert_int_equal(n, 2); /* scene (buttons) and the folded help */
    assert_true(ks_ui_font_px(g_ui) >= 13.0f);
    assert_int_equal(ks_ui_frame(g_ui, NULL, 800, 600, 1, 0, &act), KS_ERR_INVALID);
}

static void test_font_fallback(void **state)
{
    (void)state;
    /* no such font file: ImGui's own font, a notice, and the same layout rules */
    setenv("KERNELSCOPE_FONT", "/nonexistent/font.ttf", 1);
    ks_ui *ui = NULL;
    char notice[256];
    ks_status st = ks_ui_create(&(ks_ui_desc){.window = g_win, .notice = notice, .notice_cap = sizeof notice}, &ui);
    unsetenv("KERNELSCOPE_FONT");
    check_ok(st, "ui with a missing font");
    assert_non_null(strstr(notice, "/nonexistent/font.ttf"));
    ks_ui *keep = g_ui;
    g_ui = ui;
    unsigned char *f = draw(800, 600, 1, 0, 3);
    check_layout(800, 600, f, 7);
    snapshot("ui_800x600_builtin_font", f, 800, 600);
    free(f);
    g_ui = keep;
    ks_ui_destroy(ui);
    /* the first UI goes on drawing after the second is gone */
    f = draw(1024, 768, 1, 0, 2);
    check_layout(1024, 768, f, 7);
    free(f);
}

/* Reddish and bluish pixels of the banner ("message") of the last frame. */
static void banner_colours(const unsigned char *f, int w, long *red, long *blue)
{
    ks_ui_rect r[KS_UI_MAX_PANELS];
    const int n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
    *red = *blue = 0;
    for (int i = 0; i < n; ++i) {
        if (strcmp(r[i].name, "message") != 0) continue;
        for (int y = (int)r[i].y; y < (int)(r[i].y + r[i].h); ++y)
            for (int x = (int)r[i].x; x < (int)(r[i].x + r[i].w); ++x) {
                const unsigned char *p = f + ((size_t)y * (size_t)w + (size_t)x) * 4;
                *red += p[0] > 120 && p[1] < 70 && p[2] < 70;
                *blue += p[2] > 90 && p[0] < 70 && p[2] > p[0] + 40;
            }
    }
}

/* Issue 23 item 10: a notice ("saved ...") has its own banner, not the
 * red one of errors. */
static void test_message_kinds(void **state)
{
    (void)state;
    long red = 0, blue = 0;
    g_view.message_kind = KS_VMSG_ERROR;
    unsigned char *f = draw(800, 600, 1, 0, 2);
    banner_colours(f, 800, &red, &blue);
    free(f);
    if (!(red > 1000 && blue < red / 20)) fail_msg("error banner: %ld red, %ld blue pixels", red, blue);
    char keep[KS_VIEW_TEXT];
    snprintf(keep, sizeof keep, "%s", g_view.message);
    snprintf(g_view.message, sizeof g_view.message, "saved /tmp/out/laplace3d_000120_screen.png");
    g_view.message_kind = KS_VMSG_NOTICE;
    f = draw(800, 600, 1, 0, 2);
    banner_colours(f, 800, &red, &blue);
    check_layout(800, 600, f, 7);
    free(f);
    g_view.message_kind = KS_VMSG_ERROR;
    snprintf(g_view.message, sizeof g_view.message, "%s", keep);
    if (!(blue > 1000 && red < blue / 20)) fail_msg("notice banner: %ld red, %ld blue pixels", red, blue);
}

/* Issue 23 item 10: the help, opened with H after frames without it, shows
 * its rows whole on the first frame it is open (no row cut to a few
 * characters), at every size; its width holds the widest key row. */
static void test_help_first_frame(void **state)
{
    (void)state;
    const int sizes[][2] = {{1280, 800}, {800, 600}, {640, 400}, {400, 300}};
    ks_ui *keep = g_ui;
    for (int k = 0; k < 4; ++k) {
        const int w = sizes[k][0], h = sizes[k][1];
        ks_ui *ui = NULL; /* a fresh UI: the help's tables have never been laid out */
        check_ok(ks_ui_create(&(ks_ui_desc){.window = g_win}, &ui), "ui");
        g_ui = ui;
        free(draw(w, h, 1, 0, 3));
        unsigned char *f = draw(w, h, 1, 1, 1);
        char name[64];
        snprintf(name, sizeof name, "ui_%dx%d_help_first", w, h);
        snapshot(name, f, w, h);
        ks_ui_rect r[KS_UI_MAX_PANELS], help = {0};
        const int n = ks_ui_panel_rects(g_ui, r, KS_UI_MAX_PANELS);
        for (int i = 0; i < n; ++i)
            if (strncmp(r[i].name, "Keys", 4) == 0) help = r[i];
        assert_true(help.w > 0.0f);
        /* the first frame's rows as a settled frame draws them: the top part of the panel, left of
         * where a scroll bar may come or go, differs in few pixels */
        unsigned char *later = draw(w, h, 1, 1, 3);
        snprintf(name, sizeof name, "ui_%dx%d_help_settled", w, h);
        snapshot(name, later, w, h);
        long differ = 0, area = 0;
        for (int y = (int)help.y; y < (int)(help.y + 0.6f * help.h); ++y)
            for (int x = (int)help.x; x < (int)(help.x + 0.85f * help.w); ++x, ++area) {
                const unsigned char *a = f + ((size_t)y * (size_t)w + (size_t)x) * 4, *b = later + ((size_t)y * (size_t)w + (size_t)x) * 4;
                differ += abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) > 60;
            }
        if (differ * 1000 > area) /* cut rows: about 1 %; whole rows: none */
            fail_msg("%dx%d: the help's first frame differs from a settled one in %ld of %ld pixels", w, h, differ, area);
        free(later);
        free(f);
        g_ui = keep;
        ks_ui_destroy(ui);
    }
}

/* Issue 34 item 13: a saved frame cannot scroll, so the Scene panel shows its
 * key rows (the scene, what runs, where, how fast) first, whatever else it
 * holds: with more rows than fit, the panel is cut, never those. */
static void test_key_rows_in_sight(void **state)
{
    (void)state;
    const ks_view keep = g_view;
    for (int i = 0; i < 24; ++i) { /* within KS_VIEW_FIELDS with the fields below */
        char label[32];
        snprintf(label, sizeof label, "row %d", i);
        ks_view_num(&g_view, KS_VGROUP_SCENE, label, i, "", KS_VFMT_INT);
    }
    ks_view_text(&g_view, KS_VGROUP_FRAME, "backend", "cuda");
    ks_view_num(&g_view, KS_VGROUP_FRAME, "fps", 59.9, "", KS_VFMT_F1);
    assert_non_null(ks_view_find(&g_view, "fps"));
    const int sizes[][2] = {{1280, 800}, {800, 600}};
    for (int k = 0; k < 2; ++k) {
        unsigned char *f = draw(sizes[k][0], sizes[k][1], 1, 0, 3);
        char name[64];
        snprintf(name, sizeof name, "ui_%dx%d_key_rows", sizes[k][0], sizes[k][1]);
        snapshot(name, f, sizes[k][0], sizes[k][1]);
        free(f);
        assert_false(ks_ui_row_shown(g_ui, "row 23")); /* the panel is cut... */
        const char *key[] = {"scene", "variant", "device", "backend", "fps", "kernel"};
        for (int i = 0; i < 6; ++i) /* ...below these */
            if (!ks_ui_row_shown(g_ui, key[i])) fail_msg("%dx%d: the row '%s' is out of sight", sizes[k][0], sizes[k][1], key[i]);
    }
    g_view = keep;
}

/* White pixels (caption text) in the picture's top-left corner, w x h box, of frame f (fw wide). */
static int caption_pixels(const unsigned char *f, int fw, int fh, int bw, int bh)
{
    float pic[4];
    if (!ks_renderer_picture_rect(g_r, pic)) return -1;
    const int x0 = (int)pic[0], top = fh - (int)(pic[1] + pic[3]); /* rows of f run top-down */
    int n = 0;
    for (int y = top; y < top + bh && y < fh; ++y)
        for (int x = x0; x < x0 + bw && x < fw; ++x) {
            const unsigned char *p = f + ((size_t)y * (size_t)fw + (size_t)x) * 4;
            n += p[0] > 200 && p[1] > 200 && p[2] > 200;
        }
    return n;
}

/* Issue 34 item 13: the view's captions (reduce names its strips so) are drawn over the picture,
 * at their place in it, with the panels; none without panels. */
static void test_picture_captions(void **state)
{
    (void)state;
    const ks_view keep = g_view;
    g_view.message[0] = '\0'; /* the banner would sit over the picture's corner */
    const int w = 1280, h = 800;
    unsigned char *f = draw(w, h, 1, 0, 2);
    const int bare = caption_pixels(f, w, h, 160, 40);
    free(f);
    assert_int_equal(bare, 0); /* the picture alone has no white */
    ks_view_label(&g_view, 0.0f, 0.0f, "1: 1048576 values");
    ks_view_label(&g_view, 0.0f, 0.5f, "2: 4096 sums of 256");
    assert_int_equal(g_view.nlabels, 2);
    f = draw(w, h, 1, 0, 2);
    snapshot("ui_captions", f, w, h);
    const int shown = caption_pixels(f, w, h, 160, 40);
    free(f);
    if (shown < 30) fail_msg("the caption over the picture's corner: %d white pixels", shown);
    f = draw(w, h, 0, 0, 2); /* panels hidden (O): the bare picture */
    const int hidden = caption_pixels(f, w, h, 160, 40);
    free(f);
    assert_int_equal(hidden, 0);
    g_view = keep;
}

int main(void)
{
    ks_window_desc desc = {.width = 800, .height = 600, .headless = 1};
    ks_status st = ks_window_create(&desc, &g_win);
    if (st != KS_OK) {
        fprintf(stderr, "skipped: %s\n", ks_error_message());
        return 77;
    }
    char notice[256];
    const ks_renderer_desc rd = {64 * 64};
    if (ks_renderer_create(&rd, &g_r) != KS_OK || ks_ui_create(&(ks_ui_desc){.window = g_win, .notice = notice, .notice_cap = sizeof notice}, &g_ui) != KS_OK) {
        fprintf(stderr, "renderer/ui: %s\n", ks_error_message());
        return 1;
    }
    if (notice[0]) fprintf(stderr, "%s\n", notice); /* fonts-dejavu-core missing */
    fill_view(&g_view);
    upload_picture();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_hidden),
        cmocka_unit_test(test_font_fallback),
        cmocka_unit_test(test_help_first_frame),
        cmocka_unit_test(test_message_kinds),
        cmocka_unit_test(test_key_rows_in_sight),
        cmocka_unit_test(test_picture_captions),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ks_ui_destroy(g_ui);
    ks_renderer_destroy(g_r);
    ks_window_destroy(g_win);
    return failed;
}
