/* The histogram picture's labels (histogram.h): a count axis on the left, bin labels below,
 * the tallest bars named above them. Laid out and rasterised on the host into a mask that
 * the CPU and GPU bar routines both lay over their bars, so the two pictures stay equal. */
#include "histogram.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* stb_easy_font is a header of static functions; not all are used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

enum {
    KS_HA_LEFT = 100,   /* margin for the count labels */
    KS_HA_BOTTOM = 84, /* margin for two rows of bin labels */
    KS_HA_TOP = 12,
    KS_HA_RIGHT = 16,
    KS_HA_SCALE = 3,   /* font pixels per stb_easy_font unit: readable when the view shrinks the picture */
    KS_HA_PEAKS = 12,  /* tallest bars named */
};

void ks_hist_bin_label(ks_hist_mode mode, unsigned bins, unsigned b, char *buf, size_t len)
{
    if (mode == KS_HIST_BYTES) {
        if (b == 0x20) snprintf(buf, len, "space"); /* printable, but shows as nothing */
        else if (b > 0x20 && b < 0x7F) snprintf(buf, len, "%c", (char)b);
        else snprintf(buf, len, "0x%02X", b);
    } else if (mode == KS_HIST_PAIRS) {
        const unsigned v = (unsigned)(((unsigned long long)b * 65536 + bins - 1) / bins); /* first value in the bin */
        const unsigned lo = v & 255, hi = v >> 8;
        if (bins == 65536 && lo >= 0x20 && lo < 0x7F && hi >= 0x20 && hi < 0x7F)
            snprintf(buf, len, "'%c%c'", (char)lo, (char)hi); /* in text order: b[2k], b[2k+1] */
        else
            snprintf(buf, len, "0x%04X", v);
    } else {
        snprintf(buf, len, "#%u", b);
    }
}

void ks_hist_count_label(double c, char *buf, size_t len)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    int k = 0;
    while (fabs(c) >= 1000.0 && k < 4) {
        c /= 1000.0;
        ++k;
    }
    if (k == 0 || c >= 100.0 || c == floor(c)) snprintf(buf, len, "%.0f%s", c, suffix[k]);
    else snprintf(buf, len, "%.1f%s", c, suffix[k]);
}

float ks_hist_column(const uint64_t *hist, unsigned bins, int log_scale, int x, int pw)
{
    const unsigned b0 = (unsigned)((uint64_t)x * bins / (unsigned)pw);
    unsigned b1 = (unsigned)((uint64_t)(x + 1) * bins / (unsigned)pw);
    if (b1 <= b0) b1 = b0 + 1;
    double s = 0.0;
    for (unsigned b = b0; b < b1; ++b) s += (double)hist[b];
    return (float)(log_scale ? log10(1.0 + s) : s);
}

typedef struct mask {
    unsigned char *m;
    int w, h;
} mask;

/* A filled rectangle [x0, x1) x [y0, y1), y counted from the top of the picture. */
static void fill(const mask *k, int x0, int y0, int x1, int y1, unsigned char v)
{
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > k->w) x1 = k->w;
    if (y1 > k->h) y1 = k->h;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) k->m[(size_t)(k->h - 1 - y) * k->w + x] = v; /* rows bottom-up */
}

static int text_width(const char *text)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    return stb_easy_font_width(buf) * KS_HA_SCALE;
}

/* Text with its top-left at (x, y), y from the top. */
static void text(const mask *k, int x, int y, const char *s)
{
    char buf[64];
    static float quads[4 * 4 * 256]; /* 16-byte vertices, 4 a quad; 64 characters */
    snprintf(buf, sizeof buf, "%s", s);
    const int nq = stb_easy_font_print(0.0f, 0.0f, buf, NULL, quads, (int)sizeof quads);
    for (int q = 0; q < nq; ++q) {
        const float *v = &quads[q * 16];
        float x0 = v[0], y0 = v[1], x1 = v[0], y1 = v[1];
        for (int i = 1; i < 4; ++i) {
            x0 = fminf(x0, v[i * 4]);
            x1 = fmaxf(x1, v[i * 4]);
            y0 = fminf(y0, v[i * 4 + 1]);
            y1 = fmaxf(y1, v[i * 4 + 1]);
        }
        fill(k, x + (int)lroundf(x0 * KS_HA_SCALE), y + (int)lroundf(y0 * KS_HA_SCALE),
             x + (int)lroundf(x1 * KS_HA_SCALE), y + (int)lroundf(y1 * KS_HA_SCALE), KS_HIST_MASK_INK);
    }
}

/* 1, 2 or 5 times a power of ten: the smallest step giving at most n ticks up to top. */
static double nice_step(double top, int n)
{
    const double raw = top / n, p = pow(10.0, floor(log10(raw)));
    const double f = raw / p;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

void ks_hist_axes_make(const uint64_t *hist, unsigned bins, ks_hist_mode mode, int log_scale, int w, int h,
                       ks_hist_axes *ax, unsigned char *mask_px)
{
    memset(mask_px, KS_HIST_MASK_NONE, (size_t)w * h);
    ax->labels = w >= 4 * KS_HA_LEFT && h >= 4 * KS_HA_BOTTOM;
    ax->x0 = ax->labels ? KS_HA_LEFT : 0;
    ax->y0 = ax->labels ? KS_HA_BOTTOM : 0;
    ax->pw = w - ax->x0 - (ax->labels ? KS_HA_RIGHT : 0);
    /* a bin under 3 pixels wide: group bins into 3-pixel columns */
    ax->cw = (unsigned)ax->pw < 3u * bins && ax->pw >= 3 ? 3 : 1;
    ax->cols = ax->pw / ax->cw;
    ax->pw = ax->cols * ax->cw;
    ax->ph = h - ax->y0 - (ax->labels ? KS_HA_TOP : 0);
    float most = 0.0f;
    for (int x = 0; x < ax->cols; ++x) {
        const float c = ks_hist_column(hist, bins, log_scale, x, ax->cols);
        if (c > most) most = c;
    }
    /* headroom above the tallest bar for its name */
    ax->top = most > 0.0f ? most * 1.08f : 0.0f;
    if (!ax->labels) return;
    const mask k = {mask_px, w, h};
    const int ybase = h - ax->y0; /* the plot's bottom edge, from the top */
    char buf[32];
    /* axes */
    fill(&k, ax->x0 - 2, h - ax->y0 - ax->ph, ax->x0, ybase + 6, KS_HIST_MASK_INK);
    fill(&k, ax->x0 - 6, ybase, ax->x0 + ax->pw, ybase + 2, KS_HIST_MASK_INK);
    /* count ticks: linear 1-2-5 steps; log powers of ten, at log10(1 + c) */
    const double top_count = log_scale ? pow(10.0, ax->top) - 1.0 : ax->top;
    double step = log_scale ? 10.0 : (top_count > 0.0 ? nice_step(top_count, 6) : 1.0);
    if (!log_scale && step < 1.0) step = 1.0; /* counts are whole */
    for (double c = log_scale ? 1.0 : 0.0; c <= top_count && ax->top > 0.0f; c = log_scale ? c * step : c + step) {
        const double v = log_scale ? log10(1.0 + c) : c;
        const int y = ybase - (int)(v / ax->top * (ax->ph - 1) + 0.5);
        if (c > 0.0) fill(&k, ax->x0, y, ax->x0 + ax->pw, y + 1, KS_HIST_MASK_GRID);
        fill(&k, ax->x0 - 8, y, ax->x0, y + 2, KS_HIST_MASK_INK);
        ks_hist_count_label(c, buf, sizeof buf);
        text(&k, ax->x0 - 12 - text_width(buf), y - 5 * KS_HA_SCALE / 2 - 2, buf);
        if (log_scale && c == 1.0) { /* 0 sits at the bottom on a log scale too */
            fill(&k, ax->x0 - 8, ybase, ax->x0, ybase + 2, KS_HIST_MASK_INK);
        }
    }
    /* bin ticks: every 2^k bins, at least 88 pixels apart, on two rows (hex, then the character) */
    unsigned every = 1;
    while (every < bins && (double)every * ax->pw / bins < 100.0) every *= 2;
    for (unsigned b = 0; b < bins; b += every) {
        const int x = ax->x0 + (int)((double)b * ax->pw / bins);
        fill(&k, x, ybase + 2, x + 2, ybase + 10, KS_HIST_MASK_INK);
        if (mode == KS_HIST_BYTES) {
            snprintf(buf, sizeof buf, "0x%02X", b);
            text(&k, x - text_width(buf) / 2, ybase + 14, buf);
            if (b >= 0x20 && b < 0x7F) {
                ks_hist_bin_label(mode, bins, b, buf, sizeof buf);
                text(&k, x - text_width(buf) / 2, ybase + 48, buf);
            }
        } else {
            ks_hist_bin_label(mode, bins, b, buf, sizeof buf);
            text(&k, x - text_width(buf) / 2, ybase + 14, buf);
        }
    }
    snprintf(buf, sizeof buf, "%s", mode == KS_HIST_BYTES ? "byte" : mode == KS_HIST_PAIRS ? "pair (bin start)" : "word hash bin");
    text(&k, ax->x0 + ax->pw - text_width(buf), ybase + 48, buf);
    /* the tallest bytes named above their bars: what a byte histogram is about */
    if (mode != KS_HIST_BYTES || bins != KS_HIST_BYTE_BINS) return;
    int named[KS_HA_PEAKS][2]; /* x ranges taken */
    int nn = 0;
    unsigned char used[KS_HIST_BYTE_BINS] = {0};
    for (int round = 0; round < 64 && nn < KS_HA_PEAKS; ++round) {
        unsigned best = 0;
        uint64_t bc = 0;
        for (unsigned b = 0; b < bins; ++b)
            if (!used[b] && hist[b] > bc) bc = hist[b], best = b;
        if (bc == 0) break;
        used[best] = 1;
        ks_hist_bin_label(mode, bins, best, buf, sizeof buf);
        const int tw = text_width(buf);
        const int x = ax->x0 + (int)(((double)best + 0.5) * ax->pw / bins) - tw / 2;
        int clash = 0;
        for (int q = 0; q < nn; ++q) clash |= x < named[q][1] && x + tw > named[q][0];
        if (clash) continue;
        /* above every bar under the label, not only its own */
        float v = 0.0f;
        for (int col = x - ax->x0; col < x - ax->x0 + tw; ++col)
            if (col >= 0 && col < ax->pw) {
                const float c = ks_hist_column(hist, bins, log_scale, col / ax->cw, ax->cols);
                if (c > v) v = c;
            }
        const int y = ybase - (int)(v / ax->top * (ax->ph - 1) + 0.5) - 8 * KS_HA_SCALE;
        text(&k, x, y < 0 ? 0 : y, buf);
        named[nn][0] = x - 4;
        named[nn][1] = x + tw + 4;
        ++nn;
    }
}
