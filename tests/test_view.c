/* The view model without GL: each scene's fields (labels, units, values that
 * match what the scene computed on the CPU backend), the mouse controls, and
 * the JSON of the whole view, checked by Python's json parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/scenes.h"
#include "app/scenes/laplace/cadence.h"
#include "app/options.h"
#include "app/scene.h"
#include "kernels/laplace/field_histogram.h"
#include "render/view.h"

enum { JSON_CAP = 1 << 20 };

static void check_ok(ks_status st, const char *what)
{
    if (st != KS_OK) fail_msg("%s: %s: %s", what, ks_status_name(st), ks_error_message());
}

/* Parses the JSON with Python (skipped when python3 is missing) and checks a
 * few members; the script's own asserts fail the test. */
static void check_json(const ks_view *v, const char *checks)
{
    char *buf = malloc(JSON_CAP);
    assert_non_null(buf);
    size_t len = 0;
    check_ok(ks_view_to_json(v, buf, JSON_CAP, &len), "to_json");
    assert_int_equal(strlen(buf), len);
    assert_true(len > 2 && buf[0] == '{' && buf[len - 1] == '}');
    if (system("python3 -c 'import json' 2>/dev/null") != 0) {
        free(buf);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/ks_view_%d.json", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys,math\nv=json.load(open(sys.argv[1]))\n"
             "F={f[\"label\"]:f for f in v[\"fields\"]}\n%s' %s",
             checks, path);
    int rc = system(cmd);
    remove(path);
    free(buf);
    if (rc != 0) fail_msg("JSON check failed (%d): %s", rc, checks);
}

/* A zoomable scene's view state as numbers in the JSON (null when none). */
static void test_viewport_json(void **state)
{
    (void)state;
    static ks_view v;
    memset(&v, 0, sizeof v);
    check_json(&v, "assert v[\"viewport\"] is None");
    v.viewport.on = 1;
    v.viewport.zoom = 2.5;
    v.viewport.px_per_cell = 0.25;
    v.viewport.grid_w = 8192;
    v.viewport.grid_h = 4096;
    v.viewport.x0 = 10;
    v.viewport.x1 = 200;
    v.viewport.y0 = 0;
    v.viewport.y1 = 4096;
    v.viewport.pic_w = 1280;
    v.viewport.pic_h = 800;
    snprintf(v.viewport.rule, sizeof v.viewport.rule, "mean of the covered cells");
    check_json(&v, "P=v[\"viewport\"]\nassert P[\"zoom\"]==2.5 and P[\"px_per_cell\"]==0.25 and P[\"grid\"]==[8192,4096]\n"
                   "assert P[\"shown_x\"]==[10,200] and P[\"shown_y\"]==[0,4096] and P[\"picture\"]==[1280,800]\n"
                   "assert P[\"rule\"]==\"mean of the covered cells\"");
}

/* An on / off control: the state now first, the other second, key flips it. */
static void test_toggle(void **state)
{
    (void)state;
    static ks_view v;
    memset(&v, 0, sizeof v);
    const ks_vcontrol *c = ks_view_toggle(&v, "scale", 'L', "log", "linear");
    assert_non_null(c);
    assert_int_equal(v.ncontrols, 1);
    assert_string_equal(c->label, "scale");
    assert_string_equal(c->value, "log");
    assert_int_equal(c->nchoices, 2);
    assert_string_equal(c->choices[0], "log");
    assert_string_equal(c->choices[1], "linear");
    assert_int_equal(c->key_prev, 0);
    assert_int_equal(c->key_next, 'L');
    v.ncontrols = KS_VIEW_CONTROLS;
    assert_null(ks_view_toggle(&v, "full", 'X', "on", "off"));
}

static void test_json_escaping(void **state)
{
    (void)state;
    static ks_view v;
    memset(&v, 0, sizeof v);
    snprintf(v.scene, sizeof v.scene, "q\"b\\s");
    ks_view_text(&v, KS_VGROUP_SCENE, "tricky", "line1\nline2\ttab \x01 \xc3\xa9 \"q\" \\");
    ks_view_num(&v, KS_VGROUP_KERNEL, "not a number", NAN, "ms", KS_VFMT_F3);
    ks_view_num(&v, KS_VGROUP_KERNEL, "inf", INFINITY, "", KS_VFMT_G4);
    ks_view_num(&v, KS_VGROUP_FRAME, "tiny", 1.25e-300, "", KS_VFMT_SCI);
    v.table.ncols = 1;
    snprintf(v.table.cols[0], sizeof v.table.cols[0], "render");
    v.table.nrows = 1;
    v.table.rows[0].cell[0] = NAN;
    v.plot.n = 2;
    v.plot.x[1] = 1.0f;
    v.plot.y[0] = -3.5f;
    snprintf(v.message, sizeof v.message, "saved /tmp/a\"b.png");
    check_json(&v, "assert v[\"scene\"]==\"q\\\"b\\\\s\"\n"
                   "assert F[\"tricky\"][\"value\"].startswith(\"line1\\nline2\\ttab \\x01 \\u00e9\")\n"
                   "assert F[\"not a number\"][\"value\"] is None and F[\"inf\"][\"value\"] is None\n"
                   "assert F[\"tiny\"][\"value\"]==1.25e-300\n"
                   "assert v[\"table\"][\"rows\"][0][\"cells\"]==[None]\n"
                   "assert v[\"plot\"][\"y\"]==[-3.5,0] and v[\"colorbar\"] is None\n"
                   "assert v[\"message\"].endswith(\"a\\\"b.png\") and v[\"message_kind\"]==\"error\"");
    v.message_kind = KS_VMSG_NOTICE; /* "saved ...": a notice, styled apart from errors (issue 23 item 10) */
    check_json(&v, "assert v[\"message_kind\"]==\"notice\"");
    /* too small a buffer: an error, and an empty string rather than half a document */
    char small[64];
    size_t len = 0;
    assert_int_equal(ks_view_to_json(&v, small, sizeof small, &len), KS_ERR_INVALID);
    assert_string_equal(small, "");
    /* formatting hints */
    char b[32];
    ks_view_format_value(0.4567, KS_VFMT_PCT, b, sizeof b);
    assert_string_equal(b, "46%");
    ks_view_format_value(NAN, KS_VFMT_F3, b, sizeof b);
    assert_string_equal(b, "-");
    ks_view_format_value(12345.0, KS_VFMT_SCI, b, sizeof b);
    assert_string_equal(b, "1.234e+04");
}

/* Runs a scene for `frames` frames on the CPU backend and fills its view. */
static void run_scene(const char *const *args, int argc, const ks_scene_api *api, int frames,
                      ks_view *v, ks_options *opt)
{
    char *argv[16];
    for (int i = 0; i < argc; ++i) argv[i] = (char *)args[i];
    memset(opt, 0, sizeof *opt);
    check_ok(ks_options_parse(argc, argv, opt), "options");
    ks_options_backend_defaults(opt, 0);
    ks_device_info dev = {0};
    ks_scene_env env = {0};
    env.opt = opt;
    env.device = &dev;
    env.t_peak_gbs = 10.0;
    void *scene = NULL;
    check_ok(api->create(&env, &scene), "create");
    ks_stage_timer *timer = NULL;
    check_ok(ks_stage_timer_create(&(ks_stage_timer_desc){0}, &timer), "timer");
    int w = 0, h = 0;
    api->max_image_size(scene, &w, &h);
    unsigned char *rgba = malloc((size_t)w * (size_t)h * 4);
    assert_non_null(rgba);
    for (int f = 0; f < frames; ++f) {
        ks_frame_ctx ctx = {0};
        ctx.timer = timer;
        ctx.step = 1;
        ctx.frame = f;
        ctx.probe_valid = 1;
        ctx.probe_a = 1;
        ctx.probe_b = 2;
        if (api->zoomable) {
            /* no viewport given: the scene shows the fit at --size (1280x800),
             * 50 pixels per cell for laplace3d's 24 x 16 slice: picture pixel
             * (75, 125) is cell (1, 2) */
            ctx.probe_a = 75;
            ctx.probe_b = 125;
        }
        check_ok(ks_stage_timer_frame_begin(timer), "frame begin");
        check_ok(api->compute(scene, &ctx), "compute");
        check_ok(api->draw(scene, &ctx, rgba, &w, &h), "draw");
        check_ok(ks_stage_timer_frame_end(timer), "frame end");
    }
    check_ok(ks_stage_timer_drain(timer), "drain");
    memset(v, 0, sizeof *v);
    api->view(scene, v);
    check_ok(api->finish(scene), "finish"); /* --dump-field */
    free(rgba);
    api->destroy(scene);
    ks_stage_timer_destroy(timer);
}

static const ks_vfield *need(const ks_view *v, const char *label, const char *unit)
{
    const ks_vfield *f = ks_view_find(v, label);
    if (f == NULL) fail_msg("no field '%s'", label);
    if (unit) assert_string_equal(f->unit, unit);
    return f;
}

static const ks_vcontrol *control(const ks_view *v, const char *label)
{
    for (int i = 0; i < v->ncontrols; ++i)
        if (strcmp(v->controls[i].label, label) == 0) return &v->controls[i];
    fail_msg("no control '%s'", label);
    return NULL;
}


/* Reads a float32 .npy of n values (format 1.0, as --dump-field writes). */
static float *read_npy(const char *path, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    unsigned char head[10];
    assert_int_equal(fread(head, 1, 10, f), 10);
    assert_memory_equal(head, "\x93NUMPY", 6);
    const long hlen = head[8] | (head[9] << 8);
    assert_int_equal(fseek(f, 10 + hlen, SEEK_SET), 0);
    float *v = malloc(n * sizeof *v);
    assert_non_null(v);
    assert_int_equal(fread(v, sizeof *v, n, f), n);
    fclose(f);
    return v;
}

/* The colour bar's histogram: the whole field's values over the colour range,
 * equal to the gold on the field the scene ends with, summing to the points. */
static void check_field_histogram(const ks_view *v, const char *npy, size_t points)
{
    assert_int_equal(v->colorbar.hist_n, 64);
    assert_true(v->colorbar.hist_lo == v->colorbar.lo && v->colorbar.hist_hi == v->colorbar.hi);
    assert_true(v->colorbar.hist_lo < v->colorbar.hist_hi);
    float *field = read_npy(npy, points);
    uint64_t gold[64] = {0};
    ks_field_hist_gold(field, points, (float)v->colorbar.hist_lo, (float)v->colorbar.hist_hi, 64, gold);
    double sum = 0.0;
    int filled = 0;
    for (int b = 0; b < 64; ++b) {
        if (v->colorbar.hist[b] != (double)gold[b]) fail_msg("bin %d: view %.0f, gold %llu", b, v->colorbar.hist[b],
                                                              (unsigned long long)gold[b]);
        sum += v->colorbar.hist[b];
        filled += v->colorbar.hist[b] > 0;
    }
    assert_true(sum == (double)points);
    assert_true(filled > 2); /* a field with a spread of values, not one spike */
    free(field);
    remove(npy);
}

/* The roofline on the CPU backend: the ceiling from env (copy bandwidth; no
 * FMA kernel there, so a note), one point for the variant that ran, with
 * positive model counts and time. */
static const ks_vroof_point *check_roof(const ks_view *v, const char *variant, double flops, double bytes)
{
    const ks_vroof *r = &v->roof;
    assert_true(r->on);
    assert_true(r->peak_gbs == 10.0);
    assert_true(r->peak_gflops == 0.0 && r->note[0]);
    assert_true(r->what[0]);
    assert_int_equal(r->n, 1);
    assert_int_equal(r->current, 0);
    const ks_vroof_point *p = &r->pts[0];
    assert_string_equal(p->name, variant);
    assert_true(p->ms > 0.0);
    if (flops >= 0.0) assert_true(fabs(p->flops - flops) <= 1e-9 * flops);
    if (bytes >= 0.0) assert_true(fabs(p->bytes - bytes) <= 1e-9 * bytes);
    assert_true(p->bytes > 0.0);
    return p;
}

static const char ks_roof_json[] =
    "R=v[\"roofline\"]\nassert R[\"counts\"]==\"model\" and R[\"peak_gbs\"]==10 and R[\"peak_gflops\"] is None\n"
    "P=R[\"points\"]\nassert len(P)==1 and P[0][\"current\"] is True and P[0][\"ms\"]>0 and P[0][\"model_bytes\"]>0\n"
    "assert abs(P[0][\"gflops\"]-P[0][\"model_flops\"]/(P[0][\"ms\"]*1e6))<=1e-9*max(1,P[0][\"gflops\"])\n";

static void test_laplace3d(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    char npy[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(npy, sizeof npy, "%s/ks_view_field3_%d.npy", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    /* --frames: the last frame computes the residual and the histogram whatever their cadence */
    const char *args[] = {"kernelscope", "laplace3d", "--grid", "24x20x16", "--iters", "3", "--dump-field", npy,
                          "--frames", "5"};
    run_scene(args, 10, ks_scene_def_find("laplace3d")->live, 5, &v, &opt);
    check_field_histogram(&v, npy, 24 * 20 * 16);
    assert_string_equal(v.scene, "laplace3d");
    assert_string_equal(need(&v, "grid", "")->text, "24x20x16");
    assert_string_equal(need(&v, "boundary", "")->text, "hot-top");
    assert_true(need(&v, "iterations/frame", "")->value == 3.0);
    assert_true(need(&v, "iterations", "")->value == 15.0);
    assert_true(need(&v, "residual at", "it")->value == 15.0); /* the last frame's */
    const ks_vfield *every = need(&v, "residual every", "frames, auto");
    assert_true(every->value >= 1 && every->value <= KS_CADENCE_MAX);
    every = need(&v, "histogram every", "frames, auto");
    assert_true(every->value >= 1 && every->value <= KS_CADENCE_MAX);
    assert_null(ks_view_find(&v, "time blocks")); /* the CPU gold has no time blocks */
    assert_true(fabs(need(&v, "points", "M")->value - 24.0 * 20 * 16 / 1e6) < 1e-12);
    assert_true(fabs(need(&v, "field size", "MiB")->value - 24.0 * 20 * 16 * 4 / 1048576.0) < 1e-12);
    const ks_vfield *res = need(&v, "residual", "RMS");
    assert_true(res->value > 0 && res->value < 1 && res->fmt == KS_VFMT_SCI);
    need(&v, "Jacobi", "ms/it");
    assert_true(need(&v, "T_eff", "GB/s")->value > 0);
    assert_true(need(&v, "T_peak", NULL)->value == 10.0);
    /* the default view: the vertical y slice through the middle, across the hot face */
    assert_string_equal(need(&v, "slice", "")->text, "y = 9");
    assert_true(need(&v, "range hi", "")->value >= need(&v, "range lo", "")->value);
    assert_true(v.colorbar.on && v.colorbar.hi == need(&v, "range hi", "")->value);
    assert_true(v.plot.n > 0 && v.plot.y[v.plot.n - 1] == (float)log10(res->value));
    assert_non_null(strstr(v.hover, "u(1, 9, 2) = "));
    /* controls: axis choices press X/Y/Z, colormap cycles C, iterations - / + */
    const ks_vcontrol *axis = control(&v, "slice axis");
    assert_int_equal(axis->nchoices, 3);
    assert_int_equal(axis->current, 1);
    assert_int_equal(axis->choice_key[2], 'Z');
    const ks_vcontrol *cm = control(&v, "colormap");
    assert_int_equal(cm->key_next, 'C');
    assert_int_equal(cm->nchoices, KS_CMAP_NUM - 1);
    assert_string_equal(cm->choices[0], cm->value);
    assert_int_equal(control(&v, "iterations/frame")->key_next, KS_KEY_PLUS);
    /* one iteration: 6 adds and a multiply per point, the field read and written */
    const ks_vroof_point *rp = check_roof(&v, "cpu", 7.0 * 24 * 20 * 16, 2.0 * 24 * 20 * 16 * 4);
    assert_true(fabs(rp->ms - need(&v, "Jacobi", "ms/it")->value) < 1e-12);
    check_json(&v, ks_roof_json);
    check_json(&v, "assert v[\"scene\"]==\"laplace3d\" and F[\"grid\"][\"value\"]==\"24x20x16\"\n"
                   "assert F[\"iterations\"][\"value\"]==15 and F[\"T_eff\"][\"unit\"]==\"GB/s\"\n"
                   "assert v[\"colorbar\"][\"colormap\"]==\"viridis\" and len(v[\"plot\"][\"x\"])==len(v[\"plot\"][\"y\"])>0\n"
                   "assert [c[\"label\"] for c in v[\"controls\"]][:2]==[\"iterations/frame\",\"slice axis\"]");
}

/* --residual-every 2 over 6 frames: residuals on frames 0, 2, 4 and the last
 * one (5), so the convergence plot holds iterations 3, 9, 15 and 18. */
static void test_laplace_residual_cadence(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    const char *args[] = {"kernelscope", "laplace3d", "--grid", "12", "--iters", "3", "--residual-every", "2",
                          "--frames", "6"};
    run_scene(args, 10, ks_scene_def_find("laplace3d")->live, 6, &v, &opt);
    const ks_vfield *every = need(&v, "residual every", "frames, fixed");
    assert_true(every->value == 2.0);
    assert_true(need(&v, "residual at", "it")->value == 18.0);
    assert_int_equal(v.plot.n, 4);
    const float want[4] = {3, 9, 15, 18};
    for (int i = 0; i < 4; ++i) assert_true(v.plot.x[i] == want[i]);
}

static void test_laplace2d(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    char npy[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(npy, sizeof npy, "%s/ks_view_field2_%d.npy", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    const char *args[] = {"kernelscope", "laplace2d", "--grid", "40x30", "--iters", "4", "--colormap", "turbo",
                          "--dump-field", npy, "--frames", "3"};
    run_scene(args, 12, ks_scene_def_find("laplace3d")->live, 3, &v, &opt);
    check_field_histogram(&v, npy, 40 * 30);
    check_json(&v, "H=v[\"colorbar\"][\"histogram\"]\nassert len(H[\"counts\"])==64 and sum(H[\"counts\"])==1200 and H[\"of\"]==\"whole field, CPU gold\"");
    assert_string_equal(v.scene, "laplace2d");
    assert_string_equal(need(&v, "grid", "")->text, "40x30");
    assert_true(need(&v, "iterations", "")->value == 12.0);
    assert_null(ks_view_find(&v, "slice"));
    assert_string_equal(control(&v, "colormap")->value, "turbo");
    assert_int_equal(v.colorbar.cmap, KS_CMAP_TURBO);
    for (int i = 0; i < v.ncontrols; ++i) assert_string_not_equal(v.controls[i].label, "slice axis");
    /* 4 adds and a multiply per point */
    check_roof(&v, "cpu", 5.0 * 40 * 30, 2.0 * 40 * 30 * 4);
    check_json(&v, ks_roof_json);
    check_json(&v, "assert v[\"scene\"]==\"laplace2d\" and v[\"colorbar\"][\"colormap\"]==\"turbo\"");
    /* the colour bar carries its map's gradient: 17 "#rrggbb" stops from the table the picture uses */
    char ends[160];
    snprintf(ends, sizeof ends,
             "S=v[\"colorbar\"][\"stops\"]\nassert len(S)==17 and S[0]==\"#%02x%02x%02x\" and S[16]==\"#%02x%02x%02x\"",
             ks_colormap_turbo_rgb[0][0], ks_colormap_turbo_rgb[0][1], ks_colormap_turbo_rgb[0][2],
             ks_colormap_turbo_rgb[255][0], ks_colormap_turbo_rgb[255][1], ks_colormap_turbo_rgb[255][2]);
    check_json(&v, ends);
}

/* D on the CPU backend (no user kernels there): handled, a one-line notice
 * says why there is no difference view, the field is drawn as before and
 * the run goes on. */
static void test_laplace_diff_key_cpu(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    const char *args[] = {"kernelscope", "laplace2d", "--grid", "40x30", "--iters", "2"};
    char *argv[6];
    for (int i = 0; i < 6; ++i) argv[i] = (char *)args[i];
    memset(&opt, 0, sizeof opt);
    check_ok(ks_options_parse(6, argv, &opt), "options");
    ks_options_backend_defaults(&opt, 0);
    ks_device_info dev = {0};
    const ks_scene_env env = {.opt = &opt, .device = &dev, .t_peak_gbs = 10.0};
    const ks_scene_api *api = ks_scene_def_find("laplace2d")->live;
    void *scene = NULL;
    check_ok(api->create(&env, &scene), "create");
    ks_stage_timer *timer = NULL;
    check_ok(ks_stage_timer_create(&(ks_stage_timer_desc){0}, &timer), "timer");
    int w = 0, h = 0;
    api->max_image_size(scene, &w, &h);
    unsigned char *before = malloc((size_t)w * h * 4), *after = malloc((size_t)w * h * 4);
    assert_true(before && after);
    const ks_key_event d = {'D', 0};
    for (int f = 0; f < 4; ++f) {
        ks_frame_ctx ctx = {.timer = timer, .step = f != 2, .frame = f};
        if (f == 2) { /* D between two frames that do not step: the same picture */
            int handled = 0;
            check_ok(api->key(scene, &d, &handled), "key D");
            assert_int_equal(handled, 1);
        }
        check_ok(ks_stage_timer_frame_begin(timer), "frame begin");
        check_ok(api->compute(scene, &ctx), "compute");
        check_ok(api->draw(scene, &ctx, f == 1 ? before : after, &w, &h), "draw");
        check_ok(ks_stage_timer_frame_end(timer), "frame end");
        if (f == 2) assert_memory_equal(before, after, (size_t)w * h * 4);
    }
    memset(&v, 0, sizeof v);
    api->view(scene, &v);
    assert_int_equal(v.message_kind, KS_VMSG_NOTICE);
    assert_non_null(strstr(v.message, "D: no difference view: the CPU backend runs no user kernels"));
    assert_null(strchr(v.message, '\n'));
    assert_null(ks_view_find(&v, "difference view")); /* nothing on: nothing to say of it */
    for (int i = 0; i < v.ncontrols; ++i) assert_string_not_equal(v.controls[i].label, "difference");
    assert_non_null(strstr(v.colorbar.label, "u (")); /* the field's colour bar */
    assert_true(need(&v, "iterations", "")->value == 6.0); /* it went on running */
    free(before);
    free(after);
    api->destroy(scene);
    ks_stage_timer_destroy(timer);
}

/* D in matmul and histogram on the CPU backend: one line says why there is no difference view,
 * and the scene runs on. */
static void test_diff_key_cpu_scenes(void **state)
{
    (void)state;
    static ks_view v;
    const char *const scenes[] = {"matmul", "histogram"};
    for (int k = 0; k < 2; ++k) {
        ks_options opt;
        char *argv[4] = {"kernelscope", (char *)scenes[k], "--size", k == 0 ? "64" : "1M"};
        memset(&opt, 0, sizeof opt);
        check_ok(ks_options_parse(4, argv, &opt), "options");
        ks_options_backend_defaults(&opt, 0);
        ks_device_info dev = {0};
        const ks_scene_env env = {.opt = &opt, .device = &dev, .t_peak_gbs = 10.0};
        const ks_scene_api *api = ks_scene_def_find(scenes[k])->live;
        void *scene = NULL;
        check_ok(api->create(&env, &scene), "create");
        int w = 0, h = 0, handled = 0;
        api->max_image_size(scene, &w, &h);
        unsigned char *rgba = malloc((size_t)w * h * 4);
        assert_non_null(rgba);
        const ks_key_event d = {'D', 0};
        check_ok(api->key(scene, &d, &handled), "key D");
        assert_int_equal(handled, 1);
        ks_frame_ctx ctx = {.step = 1};
        check_ok(api->compute(scene, &ctx), "compute");
        check_ok(api->draw(scene, &ctx, rgba, &w, &h), "draw");
        memset(&v, 0, sizeof v);
        api->view(scene, &v);
        assert_non_null(strstr(v.message, "D: no difference view: the CPU backend runs no user kernels"));
        assert_null(ks_view_find(&v, "difference view")); /* nothing on: nothing to say of it */
        free(rgba);
        api->destroy(scene);
    }
}

static void test_spheres(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    const char *args[] = {"kernelscope", "spheres", "--spheres", "64", "--size", "96x64", "--seed", "5"};
    run_scene(args, 8, ks_scene_def_find("spheres")->live, 3, &v, &opt);
    assert_string_equal(v.scene, "spheres");
    assert_string_equal(v.image_name, "spheres_cpu");
    assert_true(need(&v, "spheres", "")->value == 64.0);
    assert_true(need(&v, "seed", "")->value == 5.0);
    assert_string_equal(need(&v, "image", "")->text, "96x64");
    const double med = need(&v, "render median", "ms")->value, mn = need(&v, "render min", "ms")->value;
    assert_true(mn > 0 && mn <= med);
    /* the A/B table holds the same median */
    assert_int_equal(v.table.ncols, 3);
    assert_int_equal(v.table.nrows, 1);
    assert_true(v.table.rows[0].selected);
    assert_true(v.table.rows[0].cell[0] == med);
    assert_string_equal(v.table.units[0], "ms");
    assert_false(v.colorbar.on);
    assert_non_null(strstr(v.hover, "pixel (1,2)"));
    assert_int_equal(control(&v, "spheres")->key_next, KS_KEY_PLUS);
    /* every pixel tests every sphere (6 flops); the picture and the spheres once */
    const ks_vroof_point *rp = check_roof(&v, "cpu", 6.0 * 96 * 64 * 64, -1.0);
    assert_true(rp->bytes > 4.0 * 96 * 64 && rp->ms == med);
    check_json(&v, ks_roof_json);
    check_json(&v, "assert v[\"table\"][\"columns\"][0]==dict(name=\"render\",unit=\"ms\")\n"
                   "assert v[\"table\"][\"rows\"][0][\"selected\"] is True and v[\"plot\"] is None\n"
                   "assert F[\"spheres\"][\"value\"]==64");
}

static void test_matmul_roof(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    const char *args[] = {"kernelscope", "matmul", "--size", "24x20x16"};
    run_scene(args, 4, ks_scene_def_find("matmul")->live, 3, &v, &opt);
    /* 2MNK flops; A, B and C once each */
    const ks_vroof_point *rp = check_roof(&v, "cpu", 2.0 * 24 * 20 * 16, 4.0 * (24 * 16 + 16 * 20 + 24 * 20));
    assert_true(fabs(rp->ms - need(&v, "time", "ms")->value) < 1e-12);
    check_json(&v, ks_roof_json);
}

static void test_histogram_roof(void **state)
{
    (void)state;
    static ks_view v;
    ks_options opt;
    const char *args[] = {"kernelscope", "histogram", "--size", "64K"};
    run_scene(args, 4, ks_scene_def_find("histogram")->live, 3, &v, &opt);
    /* bytes read, no flops: the point sits at the far left */
    const ks_vroof_point *rp = check_roof(&v, "cpu", -1.0, -1.0);
    assert_true(rp->flops == 0.0 && rp->bytes <= 65536.0);
    assert_true(fabs(rp->ms - need(&v, "chunk time", "ms")->value) < 1e-12);
    check_json(&v, "R=v[\"roofline\"]\nassert R[\"points\"][0][\"model_flops\"]==0 and R[\"points\"][0][\"intensity\"]==0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_escaping),
        cmocka_unit_test(test_toggle),
        cmocka_unit_test(test_viewport_json),
        cmocka_unit_test(test_laplace3d),
        cmocka_unit_test(test_laplace_residual_cadence),
        cmocka_unit_test(test_laplace2d),
        cmocka_unit_test(test_laplace_diff_key_cpu), cmocka_unit_test(test_diff_key_cpu_scenes),
        cmocka_unit_test(test_spheres),
        cmocka_unit_test(test_matmul_roof),
        cmocka_unit_test(test_histogram_roof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
