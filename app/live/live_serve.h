/* The live loop's side of --serve: starts the server, hands it the state
 * document and the bare picture once per frame (through an asynchronous GL
 * readback, and only while a viewer waits for pictures), and passes on what
 * the pages send. */
#ifndef KS_LIVE_SERVE_H
#define KS_LIVE_SERVE_H

#include "app/options.h"
#include "render/renderer.h"
#include "render/view.h"
#include "serve/input_queue.h"
#include "serve/server.h"

typedef struct ks_live_serve ks_live_serve;

typedef struct ks_live_serve_desc {
    const ks_options *opt;     /* --serve address and port, --token, --fps; required */
    int use_cuda;              /* 1: JPEG frames encoded on the GPU (nvJPEG), falling back to
                                  libjpeg-turbo with one notice line; 0 (default): libjpeg-turbo */
    int max_width, max_height; /* pixels: the largest picture nvJPEG is made for (with use_cuda;
                                  0: no nvJPEG encoder can be made, so libjpeg-turbo) */
    const ks_server_editor *editor; /* --edit: the kernel file the page edits (a token is then
                                       made even on loopback when --token is not given); NULL: none */
} ks_live_serve_desc;

/* Starts the server of desc->opt->serve (a token made when the address needs
 * one); prints the URL to open. Needs the GL context current. desc NULL or
 * no opt: KS_ERR_INVALID. */
ks_status ks_live_serve_create(const ks_live_serve_desc *desc, ks_live_serve **out);
void ks_live_serve_destroy(ks_live_serve *ls);
/* Input from the pages, oldest first; 1 while events remain. */
int ks_live_serve_next_input(ks_live_serve *ls, ks_input_event *ev);
/* After the frame is drawn: the state (at most every 1/60 s, or now when
 * force) and the picture (when a viewer waits and the encoder is free). */
ks_status ks_live_serve_frame(ks_live_serve *ls, ks_renderer *r, const ks_view *v, int force);
/* The port listened on (0 for NULL), and the JPEG or H.264 encoder's name ("" when none). */
int ks_live_serve_port(const ks_live_serve *ls);
const char *ks_live_serve_encoder(const ks_live_serve *ls, int h264);
/* The pages' own reports (serve/server.h); 0 (and *out zeroed) without a server. */
int ks_live_serve_viewer_stats(const ks_live_serve *ls, ks_server_viewer_stats *out);

#endif
