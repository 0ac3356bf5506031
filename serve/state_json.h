/* The state document the server publishes (GET /state.json and the page's
 * text messages): a flat summary of the view model that scripts can rely on
 * (scene, device, backend, variant, block, memory, grid, iteration, residual,
 * stage medians, T_eff, T_peak, fps, paused, frame) and, under "view", the
 * whole view as ks_view_to_json writes it (what the page draws). */
#ifndef KS_STATE_JSON_H
#define KS_STATE_JSON_H

#include <stddef.h>

#include "render/view.h"

/* Into buf (cap bytes); KS_ERR_INVALID when it does not fit. */
ks_status ks_serve_state_json(const ks_view *v, char *buf, size_t cap, size_t *len);

#endif
