/* The browser viewer's server (libwebsockets, on its own thread):
 *   GET /            the viewer page (compiled into the binary)
 *   GET /ws          WebSocket: binary frames and JSON state out, JSON input in
 *   GET /stream.mjpg multipart/x-mixed-replace JPEG stream
 *   GET /state.json  the newest state document
 *   POST /key?k=NAME a key press (GLFW key name in lower case): 204, 400 unknown
 *   GET /kernel      with an editor (--edit): the kernel file, its source and its last build (JSON)
 *   POST /kernel     with an editor: a new source as the body (at most 64 KiB): 202 when taken,
 *                    409 while a build runs; both always need the token
 *   GET /editor.js, /editor.css  with an editor: CodeMirror (Debian's libjs-codemirror, read from
 *                    codemirror_dir when the server starts), 404 when it is not installed
 * The live loop publishes a state document and pictures and drains input; it
 * never waits for a client. */
#ifndef KS_SERVER_H
#define KS_SERVER_H

#include <stddef.h>

#include "base/ks_error.h"
#include "serve/frame_encoder.h"
#include "serve/input_queue.h"

typedef struct ks_server ks_server;

/* What the pages say of themselves: each sends {"stats":{"fps":F,"codec":"jpeg"|"h264"}}
 * about once a second (frames it decoded and drew per second over that second). */
typedef struct ks_server_viewer_stats {
    double fps;                  /* the newest report */
    ks_frame_kind kind;          /* its frames: JPEG or H.264; KS_FRAME_NONE before any report */
    unsigned long long reports;  /* reports so far, from every page */
    double fps_sum;              /* their fps summed (a mean over a span: differences of two reads) */
} ks_server_viewer_stats;

/* A kernel file the pages may edit (--edit). Both run on the server's thread
 * and must not block for long. */
typedef struct ks_server_editor {
    void *user;
    /* The editor's document, a JSON object ({"file":...,"source":...,"busy":...}), into buf
     * (cap bytes); its length, or 0 when it cannot be made (503). */
    size_t (*describe)(void *user, char *buf, size_t cap);
    /* A new source of len bytes (no NUL, at most KS_REQ_SOURCE_MAX): 0 when it is written and
     * its build follows; else the HTTP status to answer (400 bad source, 409 a build runs,
     * 500 cannot write), with one line in msg. */
    unsigned (*submit)(void *user, const char *src, size_t len, char *msg, size_t cap);
} ks_server_editor;

#define KS_CODEMIRROR_DIR "/usr/share/javascript/codemirror" /* Debian's libjs-codemirror */

typedef struct ks_server_desc {
    const char *addr;          /* NULL: "127.0.0.1" */
    int port;                  /* 0: a free port (ks_server_port tells which) */
    const char *token;         /* required as ?token= when set; NULL or "": none */
    int jpeg_quality;          /* 1..100; 0: KS_FRAME_JPEG_QUALITY_DEFAULT (80) */
    ks_frame_encoder *video;   /* H.264 encoder, owned by the server; NULL: JPEG only */
    ks_frame_encoder *jpeg;    /* JPEG encoder, owned by the server; NULL: libjpeg-turbo */
    const ks_server_editor *editor; /* copied; NULL: no /kernel (then GET /kernel is 404) */
    const char *codemirror_dir;    /* with an editor: CodeMirror's folder; NULL: KS_CODEMIRROR_DIR;
                                      its files missing: the page keeps its plain text area */
} ks_server_desc;

/* Binds and starts the service and encode threads. A bind failure (port in
 * use, bad address) is KS_ERR_INVALID with one line. */
ks_status ks_server_create(const ks_server_desc *d, ks_server **out);
void ks_server_destroy(ks_server *s);
int ks_server_port(const ks_server *s);
/* The URL to open, with the token when there is one. */
const char *ks_server_url(const ks_server *s);
/* 1 while some viewer waits for pictures (the live loop reads back only then). */
int ks_server_wants_frame(ks_server *s);
/* 1 while the encoder has not yet taken the last picture (no use handing another). */
int ks_server_frame_pending(ks_server *s);
/* Hands a picture to the encode thread (copied; newest wins). */
ks_status ks_server_publish_frame(ks_server *s, const ks_frame_image *img);
/* The state document (JSON object, copied). */
ks_status ks_server_publish_state(ks_server *s, const char *json, size_t len);
/* Input from the pages, oldest first; 1 while events remain. */
int ks_server_next_input(ks_server *s, ks_input_event *ev);
/* Waits up to seconds (at most 1) for input from a page; 1 when some is queued. */
int ks_server_wait_input(ks_server *s, double seconds);
/* The pages' reports so far (zeroed before the first). */
void ks_server_viewer_stats_get(ks_server *s, ks_server_viewer_stats *out);
/* The encoder's name for that kind ("libjpeg-turbo", "nvjpeg", "libx264", ...); "" when none. */
const char *ks_server_encoder_name(const ks_server *s, ks_frame_kind kind);

#endif
