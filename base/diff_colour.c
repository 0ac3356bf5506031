#include "base/diff_colour.h"

#include <math.h>
#include <string.h>

static const unsigned char ks_diff_zero[4] = KS_DIFF_ZERO_RGBA;

const unsigned char *ks_diff_colour_of(const unsigned char table[256][4], float v, float max, float inv_span)
{
    if (v == 0.0f) return ks_diff_zero;
    /* +inf, and anything over an empty range, is the top of the map */
    if (isinf(v) || !(max > 0.0f)) return table[255];
    return table[ks_colormap_index(v, 0.0f, inv_span)];
}

void ks_diff_color(float v, float max, unsigned char rgba[4])
{
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_DIFF_CMAP, table);
    memcpy(rgba, ks_diff_colour_of(table, v, max, ks_colormap_inv_span(0.0f, max)), 4);
}

void ks_diff_summarize(const float *diff, size_t n, ks_diff_stats *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; ++i) {
        const float v = diff[i];
        if (!(v > 0.0f)) continue;
        ++out->nonzero;
        if (isinf(v)) ++out->unwritten;
        else if (v > out->max) out->max = v;
    }
}

float ks_diff_value(float got, float want)
{
    if (got == want) return 0.0f; /* first: inf against inf is no difference */
    const int gn = isnan(got), wn = isnan(want);
    if (gn && wn) return 0.0f;
    if (gn || wn) return INFINITY;
    const float d = fabsf(got - want);
    return isnan(d) ? INFINITY : d; /* inf - inf */
}
