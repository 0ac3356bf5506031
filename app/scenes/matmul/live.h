/* The matmul scene's live view (live.c), for its registry row. */
#ifndef KS_MATMUL_LIVE_H
#define KS_MATMUL_LIVE_H

#include "app/scene.h"

extern const ks_scene_api ks_scene_matmul_api;

#endif
