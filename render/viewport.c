/* The live view's zoom and pan (viewport.h); all positions in 1/2^32 cells.
 * Products of a pixel count and a step are only formed where they are known
 * to stay within the grid (at most 2^20 cells = 2^52 units), never at the
 * fit, where a tiny area over a huge grid could overflow them. */
#include "viewport.h"

#include <math.h>
#include <string.h>

#define ONE KS_CELLMAP_ONE

typedef struct axis_view {
    long long origin; /* cell coordinate of the picture's pixel 0 */
    int pixels;       /* picture pixels */
    int offset;       /* picture's pixel 0 in the area */
    int pans;         /* 1: wider than the area, so it fills it and pans */
} axis_view;

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

/* cells (fixed point) fit into area pixels of step: end <= area * step */
static int fits(long long end, int area, long long step) { return (end + area - 1) / area <= step; }

static axis_view axis_of(int cells, int area, long long step, long long centre)
{
    axis_view a;
    const long long end = (long long)cells * ONE;
    if (fits(end, area, step)) {
        /* zoomed in, the pixels whose centre lies on the grid: (p + 1/2) step < end;
         * zoomed out, up to the one whose span holds the last cell's centre:
         * p step <= end - 1/2 < (p + 1) step. Either way <= area. */
        if (step < ONE)
            a.pixels = (int)((2 * end - step + 2 * step - 1) / (2 * step));
        else
            a.pixels = (int)((2 * end - ONE) / (2 * step)) + 1;
        a.origin = 0;
        a.offset = (area - a.pixels) / 2;
        a.pans = 0;
    } else {
        const long long span = (long long)area * step; /* < end: no overflow */
        long long o = centre - span / 2;
        if (o > end - span) o = end - span;
        if (o < 0) o = 0;
        a.origin = o;
        a.pixels = area;
        a.offset = 0;
        a.pans = 1;
    }
    return a;
}

static long long fit_step(const ks_viewport *v)
{
    const long long sx = ((long long)v->grid_w * ONE + v->area_w - 1) / v->area_w;
    const long long sy = ((long long)v->grid_h * ONE + v->area_h - 1) / v->area_h;
    return sx > sy ? sx : sy;
}

static long long min_step(const ks_viewport *v)
{
    const long long fit = fit_step(v), lim = ONE / KS_VIEWPORT_MAX_PX_PER_CELL;
    return fit < lim ? fit : lim;
}

static long long step_for_level(const ks_viewport *v, int level)
{
    const long long fit = fit_step(v), lo = min_step(v);
    long long s = level <= 0 ? fit : llround((double)fit * pow(KS_VIEWPORT_ZOOM_STEP, -level));
    if (s > fit) s = fit;
    if (s < lo) s = lo;
    return s;
}

/* Keeps the stored centres where the picture really is: the grid's middle on
 * an axis that fits, the clamped view's middle on one that pans. */
static void normalise(ks_viewport *v)
{
    if (v->grid_w <= 0) return;
    const axis_view x = axis_of(v->grid_w, v->area_w, v->step, v->centre_x);
    const axis_view y = axis_of(v->grid_h, v->area_h, v->step, v->centre_y);
    v->centre_x = x.pans ? x.origin + (long long)v->area_w * v->step / 2 : (long long)v->grid_w * ONE / 2;
    v->centre_y = y.pans ? y.origin + (long long)v->area_h * v->step / 2 : (long long)v->grid_h * ONE / 2;
}

void ks_viewport_init(ks_viewport *v)
{
    memset(v, 0, sizeof *v);
    v->area_w = 1;
    v->area_h = 1;
}

void ks_viewport_reset(ks_viewport *v)
{
    v->level = 0;
    if (v->grid_w <= 0) return;
    v->step = fit_step(v);
    normalise(v);
}

void ks_viewport_set_area(ks_viewport *v, int w, int h)
{
    w = clampi(w, 1, KS_VIEWPORT_MAX_AREA);
    h = clampi(h, 1, KS_VIEWPORT_MAX_AREA);
    if (w == v->area_w && h == v->area_h) return;
    v->area_w = w;
    v->area_h = h;
    if (v->grid_w <= 0) return;
    /* levels beyond the new limit would do nothing when zooming out again */
    while (v->level > 0 && step_for_level(v, v->level - 1) == min_step(v)) --v->level;
    v->step = step_for_level(v, v->level);
    normalise(v);
}

void ks_viewport_set_grid(ks_viewport *v, int w, int h)
{
    w = clampi(w, 1, KS_CELLMAP_MAX_CELLS);
    h = clampi(h, 1, KS_CELLMAP_MAX_CELLS);
    if (w == v->grid_w && h == v->grid_h) return;
    v->grid_w = w;
    v->grid_h = h;
    ks_viewport_reset(v);
}

/* Cell coordinate at the centre of area pixel a (nearest picture pixel). */
static long long cell_under(const axis_view *a, long long step, int ap)
{
    const int p = clampi(ap - a->offset, 0, a->pixels - 1);
    return a->origin + (2 * (long long)p + 1) * step / 2;
}

int ks_viewport_zoom(ks_viewport *v, int steps, int ax, int ay)
{
    if (v->grid_w <= 0 || steps == 0) return 0;
    int level = v->level;
    const long long lo = min_step(v);
    for (int i = 0; i < (steps > 0 ? steps : -steps); ++i) {
        if (steps > 0 && step_for_level(v, level) > lo) ++level;
        else if (steps < 0 && level > 0) --level;
    }
    if (level == v->level) return 0;
    const axis_view x = axis_of(v->grid_w, v->area_w, v->step, v->centre_x);
    const axis_view y = axis_of(v->grid_h, v->area_h, v->step, v->centre_y);
    const long long qx = cell_under(&x, v->step, ax), qy = cell_under(&y, v->step, ay);
    v->level = level;
    v->step = step_for_level(v, level);
    /* where the cell under the cursor lands if the axis pans at the new step:
     * origin = q - (a + 1/2) step, centre = origin + area step / 2 */
    const int px = clampi(ax, 0, v->area_w - 1), py = clampi(ay, 0, v->area_h - 1);
    if (!fits((long long)v->grid_w * ONE, v->area_w, v->step))
        v->centre_x = qx - (2 * (long long)px + 1) * v->step / 2 + (long long)v->area_w * v->step / 2;
    if (!fits((long long)v->grid_h * ONE, v->area_h, v->step))
        v->centre_y = qy - (2 * (long long)py + 1) * v->step / 2 + (long long)v->area_h * v->step / 2;
    normalise(v);
    return 1;
}

int ks_viewport_pan(ks_viewport *v, int dx, int dy)
{
    if (v->grid_w <= 0 || (dx == 0 && dy == 0)) return 0;
    const long long cx = v->centre_x, cy = v->centre_y;
    /* the picture follows the pointer: the cells move the other way; a drag is
     * at most the area (clamped), so the products stay within the grid */
    if (!fits((long long)v->grid_w * ONE, v->area_w, v->step))
        v->centre_x -= (long long)clampi(dx, -v->area_w, v->area_w) * v->step;
    if (!fits((long long)v->grid_h * ONE, v->area_h, v->step))
        v->centre_y -= (long long)clampi(dy, -v->area_h, v->area_h) * v->step;
    normalise(v);
    return v->centre_x != cx || v->centre_y != cy;
}

void ks_viewport_map(const ks_viewport *v, ks_cellmap *m)
{
    const axis_view x = axis_of(v->grid_w > 0 ? v->grid_w : 1, v->area_w, v->step > 0 ? v->step : ONE, v->centre_x);
    const axis_view y = axis_of(v->grid_h > 0 ? v->grid_h : 1, v->area_h, v->step > 0 ? v->step : ONE, v->centre_y);
    m->x.step = m->y.step = v->step > 0 ? v->step : ONE;
    m->x.origin = x.origin;
    m->y.origin = y.origin;
    m->x.cells = v->grid_w > 0 ? v->grid_w : 1;
    m->y.cells = v->grid_h > 0 ? v->grid_h : 1;
    m->x.pixels = x.pixels;
    m->y.pixels = y.pixels;
}

void ks_viewport_offset(const ks_viewport *v, int *ox, int *oy)
{
    ks_cellmap m;
    ks_viewport_map(v, &m);
    if (ox) *ox = (v->area_w - m.x.pixels) / 2;
    if (oy) *oy = (v->area_h - m.y.pixels) / 2;
}

int ks_viewport_pick(const ks_viewport *v, int ax, int ay, int *px, int *py)
{
    if (v->grid_w <= 0) return 0;
    ks_cellmap m;
    ks_viewport_map(v, &m);
    const int a = ax - (v->area_w - m.x.pixels) / 2, b = ay - (v->area_h - m.y.pixels) / 2;
    if (a < 0 || b < 0 || a >= m.x.pixels || b >= m.y.pixels) return 0;
    if (px) *px = a;
    if (py) *py = b;
    return 1;
}

int ks_viewport_cell_at(const ks_viewport *v, int ax, int ay, int *cx, int *cy)
{
    int a, b;
    if (!ks_viewport_pick(v, ax, ay, &a, &b)) return 0;
    ks_cellmap m;
    ks_viewport_map(v, &m);
    if (cx) *cx = ks_cellmap_probe(&m.x, a);
    if (cy) *cy = ks_cellmap_probe(&m.y, b);
    return 1;
}

void ks_viewport_shown(const ks_viewport *v, int *x0, int *x1, int *y0, int *y1)
{
    ks_cellmap m;
    ks_viewport_map(v, &m);
    int a, b;
    ks_cellmap_range(&m.x, 0, x0, &b);
    ks_cellmap_range(&m.x, m.x.pixels - 1, &a, x1);
    ks_cellmap_range(&m.y, 0, y0, &b);
    ks_cellmap_range(&m.y, m.y.pixels - 1, &a, y1);
}

double ks_viewport_zoom_factor(const ks_viewport *v)
{
    if (v->grid_w <= 0 || v->step <= 0) return 1.0;
    return (double)fit_step(v) / (double)v->step;
}

double ks_viewport_px_per_cell(const ks_viewport *v)
{
    if (v->grid_w <= 0 || v->step <= 0) return 1.0;
    return (double)ONE / (double)v->step;
}
