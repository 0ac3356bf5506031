/* The live view of a cell grid (the Laplace field or slice) in the picture
 * area: zoom and pan, and the picture the scene writes for them. Plain C, no
 * GL: the live loop feeds it the area and the mouse and keys, the scene gives
 * it its grid and writes a picture of ks_viewport_map's size (never larger
 * than the area), which the renderer shows at one picture pixel per screen
 * pixel. So the picture costs what the screen costs, not what the grid costs.
 *
 *   - zoom level 0 fits the whole grid into the area (aspect kept, centred);
 *     each level in shows 1.25 x more pixels per cell, up to
 *     KS_VIEWPORT_MAX_PX_PER_CELL (a grid that fits at more than that does
 *     not zoom in); out stops at the fit;
 *   - an axis along which the zoomed grid is wider than the area fills the
 *     area and can be panned, clamped so the grid always covers it; an axis
 *     that fits is centred;
 *   - zooming keeps the cell under the cursor under it (as far as the clamp
 *     allows); a change of grid (another slice axis) goes back to the fit.
 * What a picture pixel shows (the cells it covers, or the cell it sits in)
 * is base/cellmap.h. All positions are exact integers. */
#ifndef KS_VIEWPORT_H
#define KS_VIEWPORT_H

#include "base/cellmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_VIEWPORT_MAX_PX_PER_CELL 64
#define KS_VIEWPORT_ZOOM_STEP 1.25 /* pixels-per-cell factor of one level */

enum { KS_VIEWPORT_MAX_AREA = 16384 }; /* area pixels per axis */

typedef struct ks_viewport {
    int grid_w, grid_h;            /* cells; 0 until a scene sets its grid */
    int area_w, area_h;            /* picture area in pixels, 1..KS_VIEWPORT_MAX_AREA */
    int level;                     /* zoom levels in from the fit (0: whole grid) */
    long long step;                /* cells per picture pixel now, 1/2^32 cells */
    long long centre_x, centre_y;  /* cell coordinate at the area's centre, 1/2^32 cells */
} ks_viewport;

/* No grid, a 1 x 1 area. */
void ks_viewport_init(ks_viewport *v);
/* The picture area (clamped to 1..KS_VIEWPORT_MAX_AREA); keeps the zoom level
 * and the cell at the centre. */
void ks_viewport_set_area(ks_viewport *v, int w, int h);
/* The grid (cells, 1..KS_CELLMAP_MAX_CELLS each); a new size resets the view
 * to the fit, the same size changes nothing. */
void ks_viewport_set_grid(ks_viewport *v, int w, int h);
/* Back to level 0: the whole grid, centred. */
void ks_viewport_reset(ks_viewport *v);
/* steps > 0 zooms in, < 0 out, about area pixel (ax, ay) (origin bottom-left
 * of the area; a point off the picture counts as its nearest picture pixel).
 * Returns 1 when the view changed. */
int ks_viewport_zoom(ks_viewport *v, int steps, int ax, int ay);
/* Moves the picture by (dx, dy) pixels (a drag), along the axes that can pan.
 * Returns 1 when the view changed. */
int ks_viewport_pan(ks_viewport *v, int dx, int dy);

/* The picture for the current view: its size (x.pixels x y.pixels, at most
 * the area) and what each pixel shows. Needs a grid. */
void ks_viewport_map(const ks_viewport *v, ks_cellmap *m);
/* Where the picture's pixel (0, 0) sits in the area (it is centred). */
void ks_viewport_offset(const ks_viewport *v, int *ox, int *oy);
/* Area pixel -> picture pixel; 0 when off the picture. */
int ks_viewport_pick(const ks_viewport *v, int ax, int ay, int *px, int *py);
/* Area pixel -> the cell the probe names there (cellmap.h); 0 when off the picture. */
int ks_viewport_cell_at(const ks_viewport *v, int ax, int ay, int *cx, int *cy);
/* The cells shown, [x0, x1) x [y0, y1). */
void ks_viewport_shown(const ks_viewport *v, int *x0, int *x1, int *y0, int *y1);
/* Zoom relative to the fit (1 = the whole grid) and picture pixels per cell. */
double ks_viewport_zoom_factor(const ks_viewport *v);
double ks_viewport_px_per_cell(const ks_viewport *v);

#ifdef __cplusplus
}
#endif
#endif
