/* The live view: window or headless EGL, the frame loop, keys, overlay,
 * saving frames and the per-frame timing CSV. */
#ifndef KS_LIVE_H
#define KS_LIVE_H

#include "scene.h"

typedef struct ks_live ks_live;

/* Sets up scene, window, renderer, interop and timer. Failures here are the
 * user's input (grid too large, block refused, no display, bad scene file):
 * main exits with status 2. */
ks_status ks_live_create(const ks_scene_env *env, const ks_scene_api *api, int headless,
                         ks_live **out);
/* Runs until Esc/Q, the window closes or --frames frames ran. */
ks_status ks_live_run(ks_live *live);
void ks_live_destroy(ks_live *live);

#endif
