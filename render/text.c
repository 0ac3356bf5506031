#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* stb_easy_font is a header of static functions; we use only some of them. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

void ks_text_measure(const char *text, int *cols, int *lines)
{
    int c = 0, maxc = 0, n = 0;
    if (text != NULL && text[0] != '\0') {
        n = 1;
        for (const char *p = text; *p; ++p) {
            if (*p == '\n') {
                /* a trailing newline does not start a visible line */
                if (p[1] != '\0') ++n;
                c = 0;
            } else {
                ++c;
                if (c > maxc) maxc = c;
            }
        }
    }
    if (cols) *cols = maxc;
    if (lines) *lines = n;
}

void ks_text_draw(ks_vertex_list *l, float x, float top, const char *text, int scale,
                  const unsigned char c[4])
{
    if (text == NULL) return;
    /* one glyph is at most ~30 quads of 4 vertices x 16 bytes */
    float quads[4 * 4 * 64];
    const float s = (float)scale;
    int col = 0, row = 0;
    for (const char *p = text; *p; ++p) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '\n') {
            ++row;
            col = 0;
            continue;
        }
        if (ch == '\t') ch = ' ';
        if (ch < 32 || ch > 126) ch = '?';
        if (ch != ' ') {
            char one[2] = {(char)ch, '\0'};
            int adv = stb_easy_font_charinfo[ch - 32].advance & 15;
            /* centre narrow glyphs in their cell so columns read evenly */
            int shift = adv < KS_TEXT_CELL_W ? (KS_TEXT_CELL_W - adv) / 2 : 0;
            float gx = x + (float)(col * KS_TEXT_CELL_W + shift) * s;
            float gy = top - (float)(row * KS_TEXT_LINE_H) * s;
            int nq = stb_easy_font_print(0, 0, one, NULL, quads, (int)sizeof quads);
            for (int q = 0; q < nq; ++q) {
                const float *v = quads + q * 16; /* 4 vertices x (x, y, z, rgba) */
                float x0 = v[0], y0 = v[1], x1 = v[8], y1 = v[9];
                /* font y grows downwards from the cell top */
                ks_vlist_rect(l, gx + x0 * s, gy - y1 * s, (x1 - x0) * s, (y1 - y0) * s, c);
            }
        }
        ++col;
    }
}

char *ks_text_align_columns(const char *text)
{
    if (text == NULL) return NULL;
    enum { MAXCOL = 32 };
    int width[MAXCOL] = {0};
    /* pass 1: widest cell of each column */
    int col = 0, w = 0;
    for (const char *p = text;; ++p) {
        if (*p == '\t' || *p == '\n' || *p == '\0') {
            if (col < MAXCOL && w > width[col]) width[col] = w;
            w = 0;
            if (*p == '\t') ++col;
            else col = 0;
            if (*p == '\0') break;
        } else {
            ++w;
        }
    }
    size_t lines = 1, len = strlen(text);
    for (const char *p = text; *p; ++p) lines += (*p == '\n');
    size_t cap = len + 1;
    for (int i = 0; i < MAXCOL; ++i) cap += lines * (size_t)(width[i] + 2);
    char *out = malloc(cap);
    if (out == NULL) return NULL;
    /* pass 2: copy, padding each cell that a tab ends */
    size_t o = 0;
    col = 0;
    w = 0;
    for (const char *p = text; *p; ++p) {
        if (*p == '\t') {
            int target = (col < MAXCOL ? width[col] : w) + 2;
            while (w < target) {
                out[o++] = ' ';
                ++w;
            }
            ++col;
            w = 0;
        } else {
            out[o++] = *p;
            if (*p == '\n') {
                col = 0;
                w = 0;
            } else {
                ++w;
            }
        }
    }
    out[o] = '\0';
    return out;
}

int ks_nice_ticks(double lo, double hi, double *ticks, int max)
{
    if (max <= 0) return 0;
    if (!isfinite(lo)) return 0;
    double a = lo < hi ? lo : hi, b = lo < hi ? hi : lo;
    double range = b - a;
    if (!isfinite(hi) || !(range > 0.0) || range < fabs(a) * 1e-12) {
        ticks[0] = lo;
        return 1;
    }
    /* try 1-2-5 steps around range/5 and keep the count closest to 5.5 */
    static const double mant[3] = {1.0, 2.0, 5.0};
    /* lo and hi are often floats: -3e-5f is -2.99999992e-5, yet -3e-5 is the tick
     * a reader expects, so ends within a millionth of a step still count */
    const double slack = 1e-6;
    double base = floor(log10(range / 5.0));
    double best_step = 0.0, best_score = 1e300;
    for (int e = -1; e <= 1; ++e) {
        for (int m = 0; m < 3; ++m) {
            double step = mant[m] * pow(10.0, base + e);
            double n = floor(b / step + slack) - ceil(a / step - slack) + 1.0;
            double score = fabs(n - 5.5);
            if (n >= 2 && score < best_score) {
                best_score = score;
                best_step = step;
            }
        }
    }
    if (!(best_step > 0.0)) {
        ticks[0] = lo;
        return 1;
    }
    int n = 0;
    double k0 = ceil(a / best_step - slack), k1 = floor(b / best_step + slack);
    for (double k = k0; k <= k1 && n < max; k += 1.0) {
        double v = k * best_step;
        if (fabs(v) < best_step * 1e-9) v = 0.0; /* avoid "-1.4e-17" */
        if (v < a) v = a; /* k * step rounding at the ends, far from zero */
        if (v > b) v = b;
        ticks[n++] = v;
    }
    return n;
}
