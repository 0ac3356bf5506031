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
/* Adds the pages' own report to the document in buf (*len bytes, a JSON
 * object): "viewer_fps" (frames a page decoded and drew in its last second,
 * 0 before any report), "viewer_codec" ("jpeg", "h264", "" before any) and
 * "viewer_reports". KS_ERR_INVALID when it does not fit or buf is no object. */
ks_status ks_serve_state_json_viewer(char *buf, size_t cap, size_t *len, double fps, const char *codec,
                                     unsigned long long reports);
/* Appends s as a JSON string (quotes, '"' '\\' and control bytes escaped) at
 * buf + *len; 0, or -1 (nothing more written) when it does not fit in cap. */
int ks_json_append_string(char *buf, size_t cap, size_t *len, const char *s);

#endif
