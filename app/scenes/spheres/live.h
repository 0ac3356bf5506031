/* The spheres scene's live view (live.c), for its registry row. */
#ifndef KS_SPHERES_LIVE_H
#define KS_SPHERES_LIVE_H

#include "app/scene.h"

extern const ks_scene_api ks_scene_spheres_api;

#endif
