/* kernelscope as a library: watch a field of your own program while it runs,
 * in a browser page (on a server with no display too), without writing a
 * colormap, a server or an encoder.
 *
 *   ks_viewer *v = NULL;
 *   ks_viewer_desc d = {0};
 *   d.serve = "127.0.0.1:8090";                   // the page to open is ks_viewer_url(v)
 *   if (ks_viewer_create(&d, &v) != 0) { puts(ks_viewer_last_error()); return 1; }
 *   for (int it = 0; it < n; ++it) {
 *       step(u, nx, ny);
 *       ks_viewer_field f = {0};
 *       f.data = u; f.dims = 2; f.size[0] = nx; f.size[1] = ny;
 *       ks_viewer_show(v, &f);                    // copies what is shown, then returns
 *       ks_viewer_value(v, "residual", r);        // the page's convergence plot
 *   }
 *   ks_viewer_destroy(v);
 *
 * Desc in, handle out, zero means default. Every call returns 0 or a status
 * (KS_VIEWER_E*) with one line in ks_viewer_last_error(); a bad argument is
 * such a status, never a crash. A viewer may be used from any thread, one
 * call at a time per viewer; viewers are independent (no global state).
 *
 * Fields in host memory (a C array, NumPy) and in CUDA device memory (a
 * cudaMalloc pointer, CuPy, PyTorch: memory = KS_VIEWER_DEVICE, with the
 * stream your solver runs on). A device field's picture is sampled by a
 * kernel queued on that stream and copied back asynchronously: show() does
 * not wait for the GPU; with two pictures still on their way a newer field is
 * dropped. A library built without CUDA refuses device fields with
 * KS_VIEWER_EUNSUPPORTED. */
#ifndef KERNELSCOPE_H
#define KERNELSCOPE_H

#ifdef __cplusplus
extern "C" {
#endif

#define KS_VIEWER_API_VERSION 3 /* 3: KS_VIEWER_BROADCAST */

enum {
    KS_VIEWER_OK = 0,
    KS_VIEWER_EINVALID = 1,     /* a bad argument: the message names it */
    KS_VIEWER_ENOMEM = 2,
    KS_VIEWER_EIO = 3,          /* a file could not be written, the server could not start */
    KS_VIEWER_EUNSUPPORTED = 4, /* not in this library (device memory in a build without CUDA) */
    KS_VIEWER_ECUDA = 5,        /* the CUDA runtime failed (no device, a pointer that is not device
                                   memory): the message has CUDA's words */
    KS_VIEWER_EDISPLAY = 6,     /* desc.window: no display, or its window or OpenGL failed */
};

typedef struct ks_viewer ks_viewer;

typedef enum ks_viewer_dtype {
    KS_VIEWER_F32 = 0, /* float (the default) */
    KS_VIEWER_F64,     /* double */
    KS_VIEWER_U8,      /* unsigned char */
    KS_VIEWER_I32,     /* int32_t */
} ks_viewer_dtype;

typedef enum ks_viewer_memory {
    KS_VIEWER_HOST = 0, /* the default */
    KS_VIEWER_DEVICE,   /* CUDA device memory: not in this version */
} ks_viewer_memory;

typedef struct ks_viewer_desc {
    const char *title;     /* the page's title, at most 31 bytes; NULL: "kernelscope" */
    const char *serve;     /* "[ADDR:]PORT" of the page (PORT 0: a free one); NULL: no page */
    const char *token;     /* the page's ?token=; NULL: made when ADDR is not loopback */
    const char *colormap;  /* "viridis" (NULL), "inferno", "turbo", "gray" */
    double range[2];       /* the colour range; range[0] == range[1]: each picture's own min and max */
    int max_width;         /* the picture at most this wide and high (0: 1024); a larger field */
    int max_height;        /* is shown by the mean of the cells each pixel covers */
    const char *record;    /* FILE.mp4 or FILE.mkv: the pictures as an H.264 video in real time
                              (written through a temporary name, renamed by ks_viewer_close);
                              NULL: none */
    int record_fps;        /* frames a second of that video (0: 30): at most that many pictures a
                              second of your program's time are kept, a pause holds the picture */
    int window;            /* 1: a window on this machine's display (DISPLAY) as well, drawn on the
                              viewer's own thread; Space, N, Q / Escape and its close button reach
                              ks_viewer_poll like the page's keys. One window a process. */
} ks_viewer_desc;

/* A stride of 0 bytes (a broadcast array: every point along the axis is the same one); 0 itself
 * means packed. The field's points must lie in memory the caller can read: data and the strides
 * are checked against overflow and the ends of the address space, never against the buffer. */
#define KS_VIEWER_BROADCAST (-0x7fffffffffffffffLL - 1)

typedef struct ks_viewer_field {
    const void *data;          /* the first point, (0, 0[, 0]) */
    ks_viewer_dtype dtype;
    ks_viewer_memory memory;
    int dims;                  /* 2 or 3 */
    long long size[3];         /* points along x, y[, z]; x is the picture's width */
    long long stride[3];       /* bytes from a point to the next along x, y, z, negative ones too;
                                  KS_VIEWER_BROADCAST: 0 bytes (every point along that axis is the
                                  same one); 0: the axis before's stride times its size (all 0:
                                  packed, x fastest) */
    int slice_axis;            /* 3D: the slice shown is across 0: z (default), 1: x, 2: y */
    long long slice;           /* 3D: the slice along that axis, counted from 1; 0: the middle one */
    void *stream;              /* KS_VIEWER_DEVICE: the cudaStream_t your solver runs on (NULL: the
                                  default stream); the picture's sampling and copy are queued on it */
} ks_viewer_field;

/* Keys for your program (ks_viewer_input.keys): a letter is its upper-case
 * ASCII code ('A'..'Z'; N and Q step and quit), a digit '0'..'9', and these. */
enum {
    KS_VIEWER_KEYS = 32, /* keys kept between two polls; more are dropped (keys_dropped) */
    KS_VIEWER_KEY_TAB = 256, KS_VIEWER_KEY_LEFT, KS_VIEWER_KEY_RIGHT, KS_VIEWER_KEY_UP, KS_VIEWER_KEY_DOWN,
    KS_VIEWER_KEY_PAGE_UP, KS_VIEWER_KEY_PAGE_DOWN, KS_VIEWER_KEY_LEFT_BRACKET, KS_VIEWER_KEY_RIGHT_BRACKET,
    KS_VIEWER_KEY_PLUS, KS_VIEWER_KEY_MINUS, KS_VIEWER_KEY_F1, KS_VIEWER_KEY_PERIOD, KS_VIEWER_KEY_COMMA,
    KS_VIEWER_KEY_HOME
};

typedef struct ks_viewer_input {
    int paused;   /* the page or the window asked for a pause (Space), and no step since */
    int steps;    /* single steps asked (N) since the last poll */
    int quit;     /* the page or the window asked to stop (Q, Escape, the window's close button) */
    int nkeys;    /* other keys pressed since the last poll, oldest first, in keys[0 .. nkeys) */
    int keys[KS_VIEWER_KEYS];
    int keys_dropped; /* keys pressed since the last poll beyond KS_VIEWER_KEYS */
} ks_viewer_input;

int ks_viewer_create(const ks_viewer_desc *desc, ks_viewer **out);
/* Shows field: copies the part that is shown (the slice, at most the picture's
 * size) and returns; the picture is made on the viewer's own thread. While
 * that thread is busy, a newer field replaces one not yet drawn: pictures are
 * dropped, the caller never waits for them. */
int ks_viewer_show(ks_viewer *v, const ks_viewer_field *field);
/* One more point of the series name. The first series named is the page's
 * convergence plot, on a log scale (its points above 0); each series' newest
 * value is shown as a field. */
int ks_viewer_value(ks_viewer *v, const char *name, double x);
/* One timing of your stage name, in milliseconds (measured as you like: a
 * host clock, cudaEventElapsedTime): the page's stage panel shows each
 * stage's median and minimum over its last 64 timings (up to 16 stages). */
int ks_viewer_stage_ms(ks_viewer *v, const char *name, double ms);
/* Your stage timed by two of your CUDA events (cudaEvent_t, made with
 * timing): record start and end on your stream around the work, then call
 * this; the library reads the time between them once both have happened,
 * never waiting for them (a pair not done yet is read at the next call; a
 * newer pair of the same stage replaces it). The stage panel as for
 * ks_viewer_stage_ms. KS_VIEWER_ECUDA for events that cannot be timed. */
int ks_viewer_stage(ks_viewer *v, const char *name, void *start_event, void *end_event);
/* The newest picture (waiting until the last field shown is drawn) as a PNG
 * at path, written through a temporary name; its size in *width, *height
 * (either may be NULL). KS_VIEWER_EINVALID before any field was shown. */
int ks_viewer_save(ks_viewer *v, const char *path, int *width, int *height);
/* What the page and the window asked for since the last poll. */
int ks_viewer_poll(ks_viewer *v, ks_viewer_input *input);
/* A key's name as the page sends it ("r", "5", "left", "page_up", "plus"); NULL for no such key. */
const char *ks_viewer_key_name(int key);
/* The page to open ("" without serve). */
const char *ks_viewer_url(const ks_viewer *v);
/* The calling thread's last error, one line ("" after a success). */
const char *ks_viewer_last_error(void);
/* Ends the viewer: the last field shown drawn, the recording finished and
 * renamed into place, the page closed; frees v. Its status is the recording's
 * (a file that could not be written). NULL is fine. */
int ks_viewer_close(ks_viewer *v);
/* ks_viewer_close without the status. */
void ks_viewer_destroy(ks_viewer *v);

#ifdef __cplusplus
}
#endif

#endif
