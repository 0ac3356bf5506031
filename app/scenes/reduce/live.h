/* The reduce scene's live view (live.c), for its registry row. */
#ifndef KS_REDUCE_LIVE_H
#define KS_REDUCE_LIVE_H

#include "app/scene.h"

extern const ks_scene_api ks_scene_reduce_api;

#endif
