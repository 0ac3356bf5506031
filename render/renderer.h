/* Draws a frame: the picture (from a pixel buffer object the scene fills,
 * through CUDA interop or a CPU mapping), scaled to fit, plus the overlay:
 * text panels, colour bar with tick values, convergence plot, a message
 * banner and the help panel. Composes into an off-screen framebuffer so that
 * a saved frame is exactly what is shown. */
#ifndef KS_RENDERER_H
#define KS_RENDERER_H

#include <stddef.h>

#include "kernels/common/colormap.h"
#include "kernels/common/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_renderer ks_renderer;

typedef struct ks_overlay {
    int visible;             /* 0: picture only (and no colour bar) */
    const char *text;        /* left panel, '\n'-separated lines */
    const char *table;       /* second panel below it (A/B table), or NULL */
    const char *message;     /* red banner across the top, or NULL */
    const char *help;        /* centred help panel (shown even if !visible), or NULL */
    const char *hover;       /* text drawn beside the cursor, or NULL */
    double cursor_x, cursor_y; /* framebuffer pixels, origin bottom-left */
    int colorbar;            /* draw the colour bar */
    ks_colormap cmap;
    float lo, hi;            /* colour bar range */
    const char *colorbar_label;
    const float *plot_x;     /* convergence plot: x (iterations), y (log10 residual) */
    const float *plot_y;
    int plot_n;              /* 0: no plot */
    const char *plot_title;
} ks_overlay;

/* Needs a current GL context. max_pixels: largest picture (w*h) the PBO must hold. */
ks_status ks_renderer_create(size_t max_pixels, ks_renderer **out);
void ks_renderer_destroy(ks_renderer *r);
/* GL name of the RGBA8 pixel buffer object (w*h*4 bytes used, rows bottom-up). */
unsigned int ks_renderer_pbo(const ks_renderer *r);
/* CPU path: maps the PBO for writing (invalidating its contents). */
ks_status ks_renderer_map_pbo(ks_renderer *r, void **ptr);
ks_status ks_renderer_unmap_pbo(ks_renderer *r);
/* Takes the PBO's first w*h*4 bytes as the picture (PBO -> texture, no CPU copy). */
ks_status ks_renderer_set_image(ks_renderer *r, int w, int h);
/* Composes picture + overlay at fb_w x fb_h and puts it on the default framebuffer. */
ks_status ks_renderer_draw(ks_renderer *r, int fb_w, int fb_h, const ks_overlay *ov);
/* The last composed frame, RGBA8, rows top-down; *rgba is malloc'd (caller frees). */
ks_status ks_renderer_read_frame(ks_renderer *r, unsigned char **rgba, int *w, int *h);
/* The bare picture at its own size (w x h of set_image), RGBA8 rows top-down, malloc'd. */
ks_status ks_renderer_read_image(ks_renderer *r, unsigned char **rgba, int *w, int *h);
/* Framebuffer pixel -> picture pixel (a, b), b = 0 bottom row; 0 when outside the picture. */
int ks_renderer_pick(const ks_renderer *r, double fb_x, double fb_y, int *a, int *b);

#ifdef __cplusplus
}
#endif
#endif
