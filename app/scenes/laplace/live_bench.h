/* The Laplace scenes' hooks for bench live and bench serve (their rows'
 * live_bench and serve_case; app/scenes.h). */
#ifndef KS_LAPLACE_LIVE_BENCH_H
#define KS_LAPLACE_LIVE_BENCH_H

#include "app/scenes.h"

ks_status ks_laplace_live_bench(const ks_scene_def *d, struct ks_live_bench *b);
ks_status ks_laplace_serve_case(const ks_scene_def *d, struct ks_serve_bench *b, const char *variant);

#endif
