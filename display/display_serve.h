/* The display's browser page (--serve, a library viewer's desc.serve): starts
 * the server, hands it the state document and the bare picture once a frame
 * (a host picture as it is, or the renderer's picture through an asynchronous
 * GL readback, and only while a viewer waits for pictures), and passes on what
 * the pages send. */
#ifndef KS_DISPLAY_SERVE_H
#define KS_DISPLAY_SERVE_H

#include <stddef.h>

#include "render/renderer.h"
#include "render/view.h"
#include "serve/input_queue.h"
#include "serve/server.h"

typedef struct ks_display_serve ks_display_serve;

typedef struct ks_display_serve_desc {
    const char *addr;          /* NULL: "127.0.0.1" */
    int port;                  /* 0: a free one */
    const char *token;         /* NULL or "": one is made when the address is not loopback, or with an editor */
    int fps;                   /* pictures at most this many a second (and H.264's rate); 0: 60 */
    int use_cuda;              /* 1: JPEG frames encoded on the GPU (nvJPEG), falling back to
                                  libjpeg-turbo with a notice; 0: libjpeg-turbo */
    int max_width, max_height; /* the largest picture nvJPEG is made for (with use_cuda) */
    int h264;                  /* 1: H.264 frames for pages with WebCodecs, where the build has video */
    const ks_server_editor *editor; /* --edit: the kernel file the page edits; NULL: none */
    char *notice;              /* gets the encoders' notices, a line each ending in '\n' ("" none) */
    size_t notice_cap;
} ks_display_serve_desc;

/* Starts the server. The picture's GL readback (ks_display_serve_frame
 * without a host picture) needs the GL context current. */
ks_status ks_display_serve_create(const ks_display_serve_desc *desc, ks_display_serve **out);
void ks_display_serve_destroy(ks_display_serve *ds);
/* The URL to open (with ?token= when there is one). */
const char *ks_display_serve_url(const ks_display_serve *ds);
/* Input from the pages, oldest first; 1 while events remain. */
int ks_display_serve_next_input(ks_display_serve *ds, ks_input_event *ev);
/* Waits up to seconds (at most 1) for input from the pages; 1 when some is queued (0 for NULL). */
int ks_display_serve_wait_input(ks_display_serve *ds, double seconds);
/* 1 while a viewer waits for pictures (0 for NULL). */
int ks_display_serve_wants_pictures(ks_display_serve *ds);
/* The state document from v now, whatever the pace (KS_OK for NULL). */
ks_status ks_display_serve_publish_state(ks_display_serve *ds, const ks_view *v);
/* After a frame is drawn: the state (at most every 1/60 s, or now when
 * force) and the picture (when a viewer waits, the encoder is free and one is
 * due): rgba (rows top-down, w x h) when given, else the renderer's. */
ks_status ks_display_serve_frame(ks_display_serve *ds, ks_renderer *r, const unsigned char *rgba, int w, int h,
                                 const ks_view *v, int force);
/* The port listened on (0 for NULL), and the JPEG or H.264 encoder's name ("" when none). */
int ks_display_serve_port(const ks_display_serve *ds);
const char *ks_display_serve_encoder(const ks_display_serve *ds, int h264);
/* The pages' own reports (serve/server.h); 0 (and *out zeroed) without a server. */
int ks_display_serve_viewer_stats(const ks_display_serve *ds, ks_server_viewer_stats *out);

#endif
