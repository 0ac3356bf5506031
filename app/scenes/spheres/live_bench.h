/* The spheres scene's hooks for bench live and bench serve (its row's
 * live_bench and serve_case; app/scenes.h). */
#ifndef KS_SPHERES_LIVE_BENCH_H
#define KS_SPHERES_LIVE_BENCH_H

#include "app/scenes.h"

ks_status ks_spheres_live_bench(const ks_scene_def *d, struct ks_live_bench *b);
ks_status ks_spheres_serve_case(const ks_scene_def *d, struct ks_serve_bench *b, const char *variant);

#endif
