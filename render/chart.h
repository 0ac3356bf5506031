/* Line charts drawn on the CPU into an RGBA buffer (no GL, no device): the
 * benches' PNG charts. Axes linear or log10 each, ticks, grid, labels,
 * title, legend; text from stb_easy_font. The caller writes the buffer
 * (ks_image_write: rows top-down, as this produces). */
#ifndef KS_CHART_H
#define KS_CHART_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_CHART_MAX_SERIES = 12 };

typedef struct ks_chart_series {
    const char *name;     /* legend entry */
    const double *x, *y;  /* n points in x order; a non-finite y, or a value <= 0 on a log
                             axis, leaves a gap in the line */
    int n;
} ks_chart_series;

/* A hollow marker: a ring in its series' colour at (x, y) with a thin line to
 * the point (to_x, to_y): where a point would be by another count (the
 * roofline's model bytes beside the measured ones). */
typedef struct ks_chart_hollow {
    int series;
    double x, y, to_x, to_y;
} ks_chart_hollow;

typedef struct ks_chart_desc {
    int width, height;    /* pixels; 0 -> 960 x 600 */
    const char *title;    /* NULL -> none */
    const char *x_label, *y_label;
    int log_x, log_y;     /* 1: log10 axis (decade ticks, minor ticks at 2..9) */
    const ks_chart_series *series;
    int series_count;     /* 1..KS_CHART_MAX_SERIES */
    /* Optional: label the x axis only at these values, with these texts (e.g. grid sizes
     * "512^3" at 512*512*512 points) instead of numbers. */
    const double *x_ticks;
    const char *const *x_tick_labels;
    int x_tick_count;
    /* 1: x is a category axis (linear, x_ticks at the categories' slots 1, 2, ...): half a slot of
     * room either side, ticks only at the categories. */
    int x_categories;
    /* Optional: hollow markers (none unusable on the axes is drawn). */
    const ks_chart_hollow *hollow;
    int hollow_count;
} ks_chart_desc;

/* Width and height after defaults. */
void ks_chart_size(const ks_chart_desc *d, int *width, int *height);
/* Draws the chart into rgba (width*height*4 bytes, row 0 at the top, alpha 255).
 * KS_ERR_INVALID for a bad description (no series, too many, size < 200 x 150). */
ks_status ks_chart_render(const ks_chart_desc *d, unsigned char *rgba);
/* Renders the chart at its size (ks_chart_size) and writes it as a PNG at path. */
ks_status ks_chart_write_png(const ks_chart_desc *d, const char *path);
/* Colour of series k (RGB), so other views can match the chart. */
void ks_chart_series_color(int k, unsigned char rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
