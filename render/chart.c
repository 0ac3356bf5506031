/* CPU line-chart rasteriser (chart.h): anti-aliased lines by distance to
 * the segment, text as stb_easy_font's quads (axis-aligned, so rotated
 * text for the y label is a swap of coordinates). */
#include "chart.h"

#include <stdlib.h>

#include "image_io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* stb_easy_font is a header of static functions; not all are used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

enum { KS_CHART_TEXT = 400 }; /* longest text drawn, bytes */

typedef struct canvas {
    unsigned char *px;
    int w, h;
    int clip[4]; /* x0, y0, x1, y1 (exclusive) */
} canvas;

typedef struct axis_map {
    double lo, hi; /* in axis units (log10 of the value on a log axis) */
    int log;
    double p0, p1; /* pixel positions of lo and hi */
} axis_map;

static const unsigned char ks_palette[KS_CHART_MAX_SERIES][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},  {148, 103, 189}, {140, 86, 75},
    {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}, {0, 0, 0},     {90, 90, 200},
};

void ks_chart_series_color(int k, unsigned char rgb[3])
{
    memcpy(rgb, ks_palette[((k % KS_CHART_MAX_SERIES) + KS_CHART_MAX_SERIES) % KS_CHART_MAX_SERIES], 3);
}

void ks_chart_size(const ks_chart_desc *d, int *width, int *height)
{
    *width = d->width > 0 ? d->width : 960;
    *height = d->height > 0 ? d->height : 600;
}

static void blend(canvas *c, int x, int y, const unsigned char rgb[3], double a)
{
    if (x < c->clip[0] || y < c->clip[1] || x >= c->clip[2] || y >= c->clip[3] || a <= 0.0) return;
    if (a > 1.0) a = 1.0;
    unsigned char *p = c->px + 4 * ((size_t)y * c->w + x);
    for (int k = 0; k < 3; ++k) p[k] = (unsigned char)lround(p[k] + (rgb[k] - p[k]) * a);
    p[3] = 255;
}

static void rect(canvas *c, int x0, int y0, int x1, int y1, const unsigned char rgb[3])
{
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) blend(c, x, y, rgb, 1.0);
}

/* Anti-aliased segment of the given width: coverage from the distance of each pixel centre. */
static void line(canvas *c, double x0, double y0, double x1, double y1, double width,
                 const unsigned char rgb[3])
{
    const double r = 0.5 * width + 1.0;
    const int bx0 = (int)floor(fmin(x0, x1) - r), bx1 = (int)ceil(fmax(x0, x1) + r);
    const int by0 = (int)floor(fmin(y0, y1) - r), by1 = (int)ceil(fmax(y0, y1) + r);
    const double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int y = by0 < c->clip[1] ? c->clip[1] : by0; y <= by1 && y < c->clip[3]; ++y)
        for (int x = bx0 < c->clip[0] ? c->clip[0] : bx0; x <= bx1 && x < c->clip[2]; ++x) {
            const double px = x + 0.5, py = y + 0.5;
            double t = len2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0.0;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            const double ex = px - (x0 + t * dx), ey = py - (y0 + t * dy);
            const double dist = sqrt(ex * ex + ey * ey);
            blend(c, x, y, rgb, 0.5 * width + 0.5 - dist);
        }
}

static void disc(canvas *c, double cx, double cy, double radius, const unsigned char rgb[3])
{
    for (int y = (int)floor(cy - radius - 1); y <= (int)ceil(cy + radius + 1); ++y)
        for (int x = (int)floor(cx - radius - 1); x <= (int)ceil(cx + radius + 1); ++x) {
            const double d = hypot(x + 0.5 - cx, y + 0.5 - cy);
            blend(c, x, y, rgb, radius + 0.5 - d);
        }
}

/* Text at (x, y) = top-left, scale pixels per font unit; vertical: reads bottom to top
 * with (x, y) its bottom-left. Returns the width in pixels. */
static int draw_text(canvas *c, int x, int y, const char *text, int scale, int vertical,
                     const unsigned char rgb[3])
{
    char buf[KS_CHART_TEXT];
    /* 16-byte vertices, 4 per quad; static because that is too much stack (one thread draws) */
    static float quads[4 * 4 * 4000];
    snprintf(buf, sizeof buf, "%s", text);
    const int nq = stb_easy_font_print(0.0f, 0.0f, buf, NULL, quads, (int)sizeof quads);
    for (int q = 0; q < nq; ++q) {
        float qx0 = 1e9f, qy0 = 1e9f, qx1 = -1e9f, qy1 = -1e9f;
        for (int v = 0; v < 4; ++v) {
            const float vx = quads[(q * 4 + v) * 4 + 0], vy = quads[(q * 4 + v) * 4 + 1];
            qx0 = fminf(qx0, vx);
            qy0 = fminf(qy0, vy);
            qx1 = fmaxf(qx1, vx);
            qy1 = fmaxf(qy1, vy);
        }
        if (!vertical)
            rect(c, x + (int)lroundf(qx0 * scale), y + (int)lroundf(qy0 * scale),
                 x + (int)lroundf(qx1 * scale), y + (int)lroundf(qy1 * scale), rgb);
        else /* font x runs up the page, font y runs right */
            rect(c, x + (int)lroundf(qy0 * scale), y - (int)lroundf(qx1 * scale),
                 x + (int)lroundf(qy1 * scale), y - (int)lroundf(qx0 * scale), rgb);
    }
    return stb_easy_font_width(buf) * scale;
}

static int text_width(const char *text, int scale)
{
    char buf[KS_CHART_TEXT];
    snprintf(buf, sizeof buf, "%s", text);
    return stb_easy_font_width(buf) * scale;
}

static double axis_value(const axis_map *a, double v) { return a->log ? log10(v) : v; }

static double axis_pixel(const axis_map *a, double v)
{
    const double u = axis_value(a, v);
    return a->p0 + (u - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static int usable(double v, int log) { return isfinite(v) && (!log || v > 0.0); }

/* Range of the data along one axis, padded; a degenerate range is widened. */
static void axis_range(const ks_chart_desc *d, int is_x, axis_map *a)
{
    const int log = is_x ? d->log_x : d->log_y;
    double lo = INFINITY, hi = -INFINITY;
    for (int s = 0; s < d->series_count; ++s)
        for (int k = 0; k < d->series[s].n; ++k) {
            const double x = d->series[s].x[k], y = d->series[s].y[k];
            if (!usable(x, d->log_x) || !usable(y, d->log_y)) continue;
            const double v = axis_value(&(axis_map){.log = log}, is_x ? x : y);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    for (int k = 0; k < d->hollow_count && d->hollow; ++k) {
        const double x = d->hollow[k].x, y = d->hollow[k].y;
        if (!usable(x, d->log_x) || !usable(y, d->log_y)) continue;
        const double v = axis_value(&(axis_map){.log = log}, is_x ? x : y);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (!(lo <= hi)) {
        lo = 0.0;
        hi = 1.0;
    }
    if (is_x && d->x_categories && !log) { /* half a slot either side: the end labels fit */
        for (int k = 0; k < d->x_tick_count && d->x_ticks; ++k) {
            lo = fmin(lo, d->x_ticks[k]);
            hi = fmax(hi, d->x_ticks[k]);
        }
        a->lo = lo - 0.5;
        a->hi = hi + 0.5;
        a->log = 0;
        return;
    }
    if (hi - lo < 1e-12) {
        const double widen = log ? 0.5 : (fabs(lo) > 0 ? 0.5 * fabs(lo) : 1.0);
        lo -= widen;
        hi += widen;
    }
    const double pad = 0.04 * (hi - lo);
    a->lo = lo - pad;
    a->hi = hi + pad;
    a->log = log;
}

static void format_tick(double v, char *buf, size_t len)
{
    if (v != 0.0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3)) snprintf(buf, len, "%.0e", v);
    else snprintf(buf, len, "%g", v);
}

/* Calls back for each tick: value, major (labelled) or not. */
typedef void (*ks_tick_fn)(canvas *c, const axis_map *a, double v, int major, void *ctx);

/* Ticks every nice step (1, 2 or 5 times a power of ten) of about (hi - lo) / 6 over [lo, hi]. */
static void linear_ticks(canvas *c, const axis_map *a, double lo, double hi, ks_tick_fn fn, void *ctx)
{
    const double raw = (hi - lo) / 6.0;
    const double mag = pow(10.0, floor(log10(raw)));
    const double f = raw / mag;
    const double step = (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
    for (double v = ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step)
        fn(c, a, fabs(v) < 1e-9 * step ? 0.0 : v, 1, ctx);
}

static void axis_ticks(canvas *c, const axis_map *a, ks_tick_fn fn, void *ctx)
{
    if (a->log) {
        const int d0 = (int)floor(a->lo), d1 = (int)ceil(a->hi);
        const int span = d1 - d0;
        /* few decades: label 1, 2 and 5; many: only the decades; less than a decade with
         * none of those inside: label every tick, so the axis always has numbers */
        int labelled = 0;
        for (int e = d0; e <= d1; ++e)
            for (int m = 1; m <= 9; ++m) {
                const double u = e + log10((double)m);
                if (u >= a->lo - 1e-9 && u <= a->hi + 1e-9)
                    labelled += m == 1 || (span <= 2 && (m == 2 || m == 5));
            }
        int inside = 0; /* ticks at 1..9 times a decade inside the range */
        for (int e = d0; e <= d1; ++e)
            for (int m = 1; m <= 9; ++m) {
                const double u = e + log10((double)m);
                inside += u >= a->lo - 1e-9 && u <= a->hi + 1e-9;
            }
        if (labelled < 2 && inside < 2) { /* e.g. 128 .. 256: one tick (200) would be the only number */
            linear_ticks(c, a, pow(10.0, a->lo), pow(10.0, a->hi), fn, ctx);
            return;
        }
        if (labelled < 2) labelled = 0; /* one number is not a scale: label every tick */
        for (int e = d0; e <= d1; ++e)
            for (int m = 1; m <= 9; ++m) {
                const double u = e + log10((double)m);
                if (u < a->lo - 1e-9 || u > a->hi + 1e-9) continue;
                const int major = labelled == 0 || m == 1 || (span <= 2 && (m == 2 || m == 5));
                fn(c, a, pow(10.0, u), major, ctx);
            }
        return;
    }
    linear_ticks(c, a, a->lo, a->hi, fn, ctx);
}

typedef struct tick_ctx {
    int plot[4]; /* x0, y0, x1, y1 */
    int is_x;
    const char *label; /* NULL: the value as a number */
} tick_ctx;

static const unsigned char ks_black[3] = {0, 0, 0}, ks_grid_major[3] = {215, 215, 215},
                           ks_grid_minor[3] = {238, 238, 238}, ks_white[3] = {255, 255, 255};

static void draw_tick(canvas *c, const axis_map *a, double v, int major, void *vctx)
{
    const tick_ctx *t = vctx;
    const int p = (int)lround(axis_pixel(a, v));
    const unsigned char *grid = major ? ks_grid_major : ks_grid_minor;
    const int len = major ? 7 : 4;
    char label[32];
    if (t->label) snprintf(label, sizeof label, "%s", t->label);
    else format_tick(v, label, sizeof label);
    if (t->is_x) {
        rect(c, p, t->plot[1], p + 1, t->plot[3], grid);
        rect(c, p, t->plot[3], p + 1, t->plot[3] + len, ks_black);
        if (major) { /* centred under the tick, kept inside the picture */
            const int tw = text_width(label, 2);
            const int x = p - tw / 2 < 2 ? 2 : p - tw / 2 + tw > c->w - 2 ? c->w - 2 - tw : p - tw / 2;
            draw_text(c, x, t->plot[3] + 10, label, 2, 0, ks_black);
        }
    } else {
        rect(c, t->plot[0], p, t->plot[2], p + 1, grid);
        rect(c, t->plot[0] - len, p, t->plot[0], p + 1, ks_black);
        if (major) draw_text(c, t->plot[0] - 10 - text_width(label, 2), p - 6, label, 2, 0, ks_black);
    }
}

/* The title, centred: on one line when it fits, else on two lines split at
 * the space nearest its middle (both above the plot, which starts at y = 50),
 * else at half size; never cut at the edges. */
static void draw_title(canvas *c, const char *title)
{
    const int room = c->w - 16;
    if (text_width(title, 2) <= room) {
        draw_text(c, (c->w - text_width(title, 2)) / 2, 16, title, 2, 0, ks_black);
        return;
    }
    const size_t n = strlen(title);
    size_t cut = 0;
    for (size_t k = 1; k + 1 < n && k < KS_CHART_TEXT; ++k)
        if (title[k] == ' ' && (cut == 0 || labs((long)(2 * k) - (long)n) < labs((long)(2 * cut) - (long)n))) cut = k;
    char a[KS_CHART_TEXT], b[KS_CHART_TEXT];
    snprintf(a, sizeof a, "%.*s", (int)cut, title);
    snprintf(b, sizeof b, "%s", title + cut + 1);
    if (cut > 0 && text_width(a, 2) <= room && text_width(b, 2) <= room) {
        draw_text(c, (c->w - text_width(a, 2)) / 2, 4, a, 2, 0, ks_black);
        draw_text(c, (c->w - text_width(b, 2)) / 2, 26, b, 2, 0, ks_black);
        return;
    }
    draw_text(c, (c->w - text_width(title, 1)) / 2, 20, title, 1, 0, ks_black);
}

ks_status ks_chart_render(const ks_chart_desc *d, unsigned char *rgba)
{
    int w, h;
    ks_chart_size(d, &w, &h);
    if (w < 200 || h < 150) return ks_fail(KS_ERR_INVALID, "chart: %dx%d is too small (at least 200x150)", w, h);
    if (d->series_count < 1 || d->series_count > KS_CHART_MAX_SERIES || !d->series)
        return ks_fail(KS_ERR_INVALID, "chart: %d series (1..%d)", d->series_count, KS_CHART_MAX_SERIES);
    canvas c = {rgba, w, h, {0, 0, w, h}};
    memset(rgba, 255, (size_t)w * h * 4);

    /* Layout: room for tick labels at the left and bottom, title at the top. */
    const int plot[4] = {100, d->title ? 50 : 24, w - 28, h - (d->x_label ? 72 : 44)};
    axis_map ax, ay;
    axis_range(d, 1, &ax);
    axis_range(d, 0, &ay);
    ax.p0 = plot[0];
    ax.p1 = plot[2];
    ay.p0 = plot[3]; /* y grows upwards */
    ay.p1 = plot[1];

    tick_ctx tx = {{plot[0], plot[1], plot[2], plot[3]}, 1, NULL}, ty = tx;
    ty.is_x = 0;
    if (d->x_ticks && d->x_tick_labels && d->x_tick_count > 0) {
        for (int k = 0; k < d->x_tick_count; ++k) {
            const double u = ax.log ? (d->x_ticks[k] > 0 ? log10(d->x_ticks[k]) : NAN) : d->x_ticks[k];
            if (!(u >= ax.lo && u <= ax.hi)) continue;
            tx.label = d->x_tick_labels[k];
            draw_tick(&c, &ax, d->x_ticks[k], 1, &tx);
        }
        tx.label = NULL;
    } else {
        axis_ticks(&c, &ax, draw_tick, &tx);
    }
    axis_ticks(&c, &ay, draw_tick, &ty);
    /* frame */
    rect(&c, plot[0], plot[3], plot[2] + 1, plot[3] + 2, ks_black);
    rect(&c, plot[0] - 1, plot[1], plot[0] + 1, plot[3] + 2, ks_black);
    rect(&c, plot[0], plot[1], plot[2] + 1, plot[1] + 1, ks_black);
    rect(&c, plot[2], plot[1], plot[2] + 1, plot[3], ks_black);

    if (d->title) draw_title(&c, d->title);
    if (d->x_label)
        draw_text(&c, (plot[0] + plot[2] - text_width(d->x_label, 2)) / 2, h - 32, d->x_label, 2, 0, ks_black);
    if (d->y_label)
        draw_text(&c, 14, (plot[1] + plot[3] + text_width(d->y_label, 2)) / 2, d->y_label, 2, 1, ks_black);

    /* series, clipped to the plot */
    c.clip[0] = plot[0];
    c.clip[1] = plot[1];
    c.clip[2] = plot[2];
    c.clip[3] = plot[3];
    for (int s = 0; s < d->series_count; ++s) {
        const ks_chart_series *se = &d->series[s];
        unsigned char rgb[3];
        ks_chart_series_color(s, rgb);
        int have_prev = 0;
        double qx = 0, qy = 0;
        for (int k = 0; k < se->n; ++k) {
            if (!usable(se->x[k], d->log_x) || !usable(se->y[k], d->log_y)) {
                have_prev = 0;
                continue;
            }
            const double px = axis_pixel(&ax, se->x[k]), py = axis_pixel(&ay, se->y[k]);
            if (have_prev) line(&c, qx, qy, px, py, 2.5, rgb);
            disc(&c, px, py, 3.5, rgb);
            qx = px;
            qy = py;
            have_prev = 1;
        }
    }

    for (int k = 0; k < d->hollow_count && d->hollow; ++k) {
        const ks_chart_hollow *ho = &d->hollow[k];
        if (ho->series < 0 || ho->series >= d->series_count || !usable(ho->x, d->log_x) || !usable(ho->y, d->log_y))
            continue;
        unsigned char rgb[3];
        ks_chart_series_color(ho->series, rgb);
        const double hx = axis_pixel(&ax, ho->x), hy = axis_pixel(&ay, ho->y);
        if (usable(ho->to_x, d->log_x) && usable(ho->to_y, d->log_y))
            line(&c, hx, hy, axis_pixel(&ax, ho->to_x), axis_pixel(&ay, ho->to_y), 1.0, rgb);
        disc(&c, hx, hy, 5.0, rgb); /* a ring: the disc, its inside white again */
        disc(&c, hx, hy, 3.0, ks_white);
    }

    /* legend inside the plot */
    int lw = 0;
    for (int s = 0; s < d->series_count; ++s) {
        const int tw = text_width(d->series[s].name ? d->series[s].name : "", 2);
        if (tw > lw) lw = tw;
    }
    const int row = 20, box_w = lw + 54, box_h = row * d->series_count + 10;
    /* the corner of the plot that covers the fewest data points (and the segments between) */
    int lx = plot[0] + 12, ly = plot[1] + 12;
    long best_cover = -1;
    for (int corner = 0; corner < 4; ++corner) {
        const int cx = corner & 1 ? plot[2] - 12 - box_w : plot[0] + 12;
        const int cy = corner & 2 ? plot[3] - 12 - box_h : plot[1] + 12;
        long cover = 0;
        for (int s = 0; s < d->series_count; ++s)
            for (int k = 0; k < d->series[s].n; ++k) {
                if (!usable(d->series[s].x[k], d->log_x) || !usable(d->series[s].y[k], d->log_y)) continue;
                const double px = axis_pixel(&ax, d->series[s].x[k]), py = axis_pixel(&ay, d->series[s].y[k]);
                cover += px >= cx - 6 && px <= cx + box_w + 6 && py >= cy - 6 && py <= cy + box_h + 6;
            }
        if (best_cover < 0 || cover < best_cover) {
            best_cover = cover;
            lx = cx;
            ly = cy;
        }
    }
    rect(&c, lx, ly, lx + box_w, ly + box_h, ks_white);
    rect(&c, lx, ly, lx + box_w, ly + 1, ks_black);
    rect(&c, lx, ly + box_h - 1, lx + box_w, ly + box_h, ks_black);
    rect(&c, lx, ly, lx + 1, ly + box_h, ks_black);
    rect(&c, lx + box_w - 1, ly, lx + box_w, ly + box_h, ks_black);
    for (int s = 0; s < d->series_count; ++s) {
        unsigned char rgb[3];
        ks_chart_series_color(s, rgb);
        const int y = ly + 6 + row * s;
        line(&c, lx + 8, y + 7, lx + 38, y + 7, 2.5, rgb);
        disc(&c, lx + 23, y + 7, 3.5, rgb);
        draw_text(&c, lx + 46, y, d->series[s].name ? d->series[s].name : "", 2, 0, ks_black);
    }
    return KS_OK;
}

ks_status ks_chart_write_png(const ks_chart_desc *d, const char *path)
{
    int w, h;
    ks_chart_size(d, &w, &h);
    unsigned char *rgba = malloc((size_t)w * (size_t)h * 4);
    if (!rgba) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the chart %s", path);
    ks_status st = ks_chart_render(d, rgba);
    if (st == KS_OK) st = ks_image_write(path, KS_FMT_PNG, rgba, w, h);
    free(rgba);
    return st;
}
