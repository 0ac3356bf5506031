/* The difference view's colours, for every scene that shows |yours - ours|
 * (a user's kernel against ours): values >= 0, or +inf where one of the two
 * left a cell unwritten (NaN) and the other did not. A pixel whose cells are
 * all exactly 0 is KS_DIFF_ZERO_RGBA, a grey that no entry of the map has;
 * any other value v the entry ks_colormap_index(v, 0, 1/max) of KS_DIFF_CMAP
 * (+inf and values above max the last entry). */
#ifndef KS_DIFF_COLOUR_H
#define KS_DIFF_COLOUR_H

#include <stddef.h>

#include "base/colormap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_DIFF_CMAP KS_CMAP_INFERNO
#define KS_DIFF_ZERO_RGBA {96, 96, 96, 255}

/* The colour of one value v (>= 0 or +inf) for the range [0, max]. */
void ks_diff_color(float v, float max, unsigned char rgba[4]);
/* The same from a table of KS_DIFF_CMAP (ks_colormap_table_rgba) and inv_span =
 * ks_colormap_inv_span(0, max): for a loop over many pixels. */
const unsigned char *ks_diff_colour_of(const unsigned char table[256][4], float v, float max, float inv_span);

/* The values' summary: the largest finite value (0 when none), the cells
 * above 0 (+inf included) and the +inf ones. */
typedef struct ks_diff_stats {
    float max;
    long long nonzero, unwritten;
} ks_diff_stats;
void ks_diff_summarize(const float *diff, size_t n, ks_diff_stats *out);
/* |got - want| with the NaN rule above (both NaN, or equal infinities: 0). */
float ks_diff_value(float got, float want);

#ifdef __cplusplus
}
#endif

#endif
