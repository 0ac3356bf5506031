/* Overlay text: stb_easy_font glyphs laid out in fixed-width cells (so table
 * columns line up), emitted as solid triangles in framebuffer pixels. Also the
 * "nice" 1-2-5 tick values of the colour bar. */
#ifndef KS_TEXT_H
#define KS_TEXT_H

#include <stddef.h>

#include "gl_util.h"

enum {
    KS_TEXT_CELL_W = 7,  /* glyph cell width in font units (widest common glyph) */
    KS_TEXT_LINE_H = 12, /* line pitch in font units (stb_easy_font's own) */
    KS_TEXT_CAP_H = 7,   /* height of capitals above the baseline area, font units */
};

/* Columns (widest line, in characters) and lines of text; both 0 for NULL/"". */
void ks_text_measure(const char *text, int *cols, int *lines);
/* Draws text with its first line's cell top at (x, top), scale = pixels per font
 * unit (integer for crisp glyphs). Characters outside printable ASCII show '?'. */
void ks_text_draw(ks_vertex_list *l, float x, float top, const char *text, int scale,
                  const unsigned char c[4]);
/* Tab-separated columns -> space-padded, each column as wide as its widest cell
 * plus two spaces. Returns a malloc'd string (NULL when out of memory). */
char *ks_text_align_columns(const char *text);

/* Up to max tick values on a 1-2-5 grid inside [min(lo,hi), max(lo,hi)], about
 * 5-6 of them. A degenerate or non-finite range gives the one value lo (if
 * finite). Returns the count; near-zero rounding noise is snapped to 0. */
int ks_nice_ticks(double lo, double hi, double *ticks, int max);

#endif
