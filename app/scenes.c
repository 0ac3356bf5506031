#include "app/scenes.h"

#include <stdio.h>
#include <string.h>

#include "app/scenes/histogram/bench_histogram.h"
#include "app/scenes/laplace/bench_laplace.h"
#include "app/bench/bench_live.h"
#include "app/scenes/matmul/bench_matmul.h"
#include "app/bench/bench_serve.h"
#include "app/scenes/spheres/bench_spheres.h"

static ks_status bench_laplace(const ks_bench_env *e)
{
    return ks_bench_laplace(e->opt, e->device, e->use_cuda, e->best, e->best_path);
}
static ks_status bench_spheres(const ks_bench_env *e) { return ks_bench_spheres(e->opt, e->device, e->use_cuda); }
static ks_status bench_matmul(const ks_bench_env *e) { return ks_bench_matmul(e->opt, e->device, e->use_cuda); }
static ks_status bench_live(const ks_bench_env *e)
{
    return ks_bench_live(e->opt, e->device, e->use_cuda, e->best);
}
static ks_status bench_serve(const ks_bench_env *e)
{
    return ks_bench_serve(e->opt, e->device, e->use_cuda, e->best);
}
static ks_status bench_histogram(const ks_bench_env *e)
{
    return ks_bench_histogram(e->opt, e->device, e->use_cuda);
}

/* The order is the order of --help. */
static const ks_scene_def ks_scene_defs[] = {
    {KS_SCENE_LAPLACE3D, "laplace3d", "3D Laplace equation, Jacobi iterations; a slice shown live (default)", 3, 1,
     KS_AT_LIVE_L3, KS_AT_BENCH_L3, ks_options_finish_laplace, ks_options_laplace_backend_defaults,
     &ks_scene_laplace, bench_laplace},
    {KS_SCENE_LAPLACE2D, "laplace2d", "2D Laplace equation, Jacobi iterations", 2, 1, KS_AT_LIVE_L2, KS_AT_BENCH_L2,
     ks_options_finish_laplace, ks_options_laplace_backend_defaults, &ks_scene_laplace, bench_laplace},
    {KS_SCENE_SPHERES, "spheres", "sphere ray caster: global, read-only, constant, shared, binned memory", 0, 1,
     KS_AT_LIVE_SPH, KS_AT_BENCH_SPH, ks_options_finish_spheres, NULL, &ks_scene_spheres, bench_spheres},
    {KS_SCENE_MATMUL, "matmul", "float32 matrix multiply: naive, shared-memory tiles, register tiles, cuBLAS", 0, 0,
     KS_AT_LIVE_MM, KS_AT_BENCH_MM, ks_options_finish_matmul, NULL, &ks_scene_matmul, bench_matmul},
    {KS_SCENE_HISTOGRAM, "histogram", "byte / pair / word histogram: global, shared and per-warp atomics, CUB", 0,
     0, KS_AT_LIVE_HIST, KS_AT_BENCH_HIST, ks_options_finish_histogram, NULL, &ks_scene_histogram,
     bench_histogram},
    /* no view of its own (live == NULL): it runs the others' live loops and times them */
    {KS_SCENE_LIVE, "live", "bench only: the live loop of every Laplace kernel and spheres, against the kernel time",
     0, 1, 0, KS_AT_BENCH_LIVE, ks_options_finish_live, ks_options_live_backend_defaults, NULL, bench_live},
    {KS_SCENE_SERVE, "serve", "bench only: the live loop with the browser viewer's server: no viewer, JPEG and H.264 "
     "viewers, --record", 0, 1, 0, KS_AT_BENCH_SERVE, ks_options_finish_serve, ks_options_serve_backend_defaults, NULL,
     bench_serve},
};
enum { KS_SCENE_DEF_COUNT = (int)(sizeof ks_scene_defs / sizeof ks_scene_defs[0]) };
_Static_assert(KS_SCENE_DEF_COUNT == KS_SCENE_NUM - 1, "one registry row per scene id");

int ks_scene_def_count(void) { return KS_SCENE_DEF_COUNT; }

const ks_scene_def *ks_scene_def_at(int i)
{
    return i >= 0 && i < KS_SCENE_DEF_COUNT ? &ks_scene_defs[i] : NULL;
}

const ks_scene_def *ks_scene_def_get(ks_scene_id id)
{
    if (id == KS_SCENE_DEFAULT) id = KS_SCENE_LAPLACE3D;
    for (int i = 0; i < KS_SCENE_DEF_COUNT; ++i)
        if (ks_scene_defs[i].id == id) return &ks_scene_defs[i];
    return NULL;
}

const ks_scene_def *ks_scene_def_find(const char *name)
{
    for (int i = 0; i < KS_SCENE_DEF_COUNT; ++i)
        if (strcmp(ks_scene_defs[i].name, name) == 0) return &ks_scene_defs[i];
    return NULL;
}

void ks_scene_def_names(const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < KS_SCENE_DEF_COUNT && used < len; ++i) {
        const int n = snprintf(buf + used, len - used, "%s%s", i ? sep : "", ks_scene_defs[i].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

const char *ks_scene_name(ks_scene_id s)
{
    const ks_scene_def *d = ks_scene_def_get(s);
    return d ? d->name : "?";
}

int ks_scene_dims(ks_scene_id s)
{
    const ks_scene_def *d = ks_scene_def_get(s);
    return d ? d->grid_dims : 0;
}
