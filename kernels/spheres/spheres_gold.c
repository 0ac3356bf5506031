/* CPU gold renderer: the definition every kernel is checked against. Brute
 * force over the spheres in list order (strict > keeps the first on equal
 * depth); the only shortcut is a per-row cull that is exact (see below). */
#include <stdlib.h>

#include "spheres.h"
#include "spheres_shade.h"
#include "base/cpu_threads.h"

static void gold_shade(const ks_sphere_packed *s, int best, float px, float py,
                       unsigned char *o)
{
    o[3] = 255;
    if (best < 0) {
        o[0] = o[1] = o[2] = 0;
        return;
    }
    const ks_sphere_packed *b = &s[best];
    const float scale = ks_sph_scale(b->r2, ks_sph_d2(px, py, b->x, b->y), b->radius);
    o[0] = ks_sph_channel(b->red, scale);
    o[1] = ks_sph_channel(b->green, scale);
    o[2] = ks_sph_channel(b->blue, scale);
}

int ks_spheres_gold_pixel(const ks_sphere_packed *s, int count, int w, int h, int i, int j,
                          unsigned char rgba[4])
{
    const float px = ks_sph_ray(i, w), py = ks_sph_ray(j, h);
    float best_depth = -INFINITY;
    int best = -1;
    for (int k = 0; k < count; ++k) {
        const float d2 = ks_sph_d2(px, py, s[k].x, s[k].y);
        if (!(d2 < s[k].r2)) continue;
        const float depth = ks_sph_depth(s[k].z, s[k].r2, d2);
        if (depth > best_depth) {
            best_depth = depth;
            best = k;
        }
    }
    gold_shade(s, best, px, py, rgba);
    return best;
}

/* One row against the spheres in cand[0..m) (ascending list order). */
static void gold_row(const ks_sphere_packed *s, const int *cand, int m, int w, float py,
                     unsigned char *row)
{
    for (int i = 0; i < w; ++i) {
        const float px = ks_sph_ray(i, w);
        float best_depth = -INFINITY;
        int best = -1;
        for (int c = 0; c < m; ++c) {
            const ks_sphere_packed *q = &s[cand[c]];
            const float d2 = ks_sph_d2(px, py, q->x, q->y);
            if (!(d2 < q->r2)) continue;
            const float depth = ks_sph_depth(q->z, q->r2, d2);
            if (depth > best_depth) {
                best_depth = depth;
                best = cand[c];
            }
        }
        gold_shade(s, best, px, py, row + 4 * (size_t)i);
    }
}

void ks_spheres_gold_render(const ks_sphere_packed *s, int count, int w, int h,
                            unsigned char *rgba)
{
#ifdef _OPENMP
    /* a pixel tests up to every sphere on its row: that many items of work */
#pragma omp parallel num_threads(ks_cpu_threads((size_t)w * (size_t)h * (size_t)(count > 1 ? count : 1)))
#endif
    {
        /* Row cull, exact: d2 = fl(fl(dx^2) + fl(dy^2)) >= fl(dy^2), so a
         * sphere with fl(dy^2) >= r2 cannot be hit anywhere on the row. */
        int *cand = malloc((size_t)(count > 0 ? count : 1) * sizeof *cand);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
        for (int j = 0; j < h; ++j) {
            const float py = ks_sph_ray(j, h);
            unsigned char *row = rgba + 4 * (size_t)w * (size_t)j;
            if (!cand) { /* no memory for the list: every pixel tests every sphere */
                for (int i = 0; i < w; ++i) ks_spheres_gold_pixel(s, count, w, h, i, j, row + 4 * (size_t)i);
                continue;
            }
            int m = 0;
            for (int k = 0; k < count; ++k) {
                const float dy = KS_SPH_SUB(py, s[k].y);
                if (KS_SPH_MUL(dy, dy) < s[k].r2) cand[m++] = k;
            }
            gold_row(s, cand, m, w, py, row);
        }
        free(cand);
    }
}
