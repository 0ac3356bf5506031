/* kernelscope as a library (lib/kernelscope.h): a field shown is sampled
 * into a small float picture on the caller's thread (the slice, the mean of
 * the cells each pixel covers; for a field in device memory, on the caller's
 * stream, lib/viewer_gpu.h), then on the viewer's own thread colormapped,
 * kept for ks_viewer_save and shown through the app's own display
 * (display/display.h): the window with the app's panels, the browser page,
 * the video. */
#include "lib/kernelscope.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/common/colormap.h"
#include "kernels/common/ks_error.h"
#include "kernels/common/ks_util.h"
#include "display/display.h"
#include "render/image_io.h"
#include "render/view.h"
#include "render/window.h"
#include "serve/serve_auth.h"
#include "serve/serve_keys.h"
#include "video/recorder.h"
#include "lib/viewer_gpu.h"

enum {
    KS_VIEWER_SIDE = 1024,      /* default largest picture side */
    KS_VIEWER_SIDE_MAX = 8192,  /* largest asked for */
    KS_VIEWER_SERIES = 8,       /* value series kept */
    KS_VIEWER_STAGE_WINDOW = 64, /* timings a stage's median is taken over */
    KS_VIEWER_WINDOW_W = 1280, /* desc.window: the app's default window */
    KS_VIEWER_WINDOW_H = 800,
    KS_VIEWER_PAGE_FPS = 120,  /* pictures a second to the page at most (a fast monitor's rate) */
};
#define KS_VIEWER_SAVE_WAIT_S 30.0 /* ks_viewer_save waits this long for the last field's picture */

static _Thread_local char last_error[512];

/* GLFW's calls belong to one thread, and the panels' ImGui has one context a
 * process: one viewer window in a process at a time. */
static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;
static int window_taken;

static int take_window(void)
{
    pthread_mutex_lock(&window_lock);
    const int free_now = !window_taken;
    window_taken = 1;
    pthread_mutex_unlock(&window_lock);
    return free_now;
}

static void give_window(void)
{
    pthread_mutex_lock(&window_lock);
    window_taken = 0;
    pthread_mutex_unlock(&window_lock);
}

/* The call's status: 0, or the public code with the message kept for ks_viewer_last_error. */
static int result(ks_status st)
{
    if (st == KS_OK) {
        last_error[0] = '\0';
        return KS_VIEWER_OK;
    }
    snprintf(last_error, sizeof last_error, "%s", ks_error_message());
    switch (st) {
    case KS_ERR_OUT_OF_MEMORY: return KS_VIEWER_ENOMEM;
    case KS_ERR_IO: return KS_VIEWER_EIO;
    case KS_ERR_UNSUPPORTED: return KS_VIEWER_EUNSUPPORTED;
    case KS_ERR_CUDA:
    case KS_ERR_NO_DEVICE: return KS_VIEWER_ECUDA;
    case KS_ERR_GL: return KS_VIEWER_EDISPLAY;
    default: return KS_VIEWER_EINVALID;
    }
}

const char *ks_viewer_last_error(void) { return last_error; }

typedef struct stage {
    char name[32];
    double ms[KS_VIEWER_STAGE_WINDOW]; /* the newest timings, a ring */
    int n, next;
    void *ev_start, *ev_end; /* ks_viewer_stage: the newest pair of your events not yet timed */
    int ev_pending;
} stage;

typedef struct series {
    char name[64];
    double last;
    long long count;
} series;

struct ks_viewer {
    char title[32];
    ks_colormap cmap;
    double lo, hi; /* lo == hi: each picture's own range */
    int max_w, max_h;
    ks_display *display; /* the viewer's thread's own */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* a field to draw, or stop */
    pthread_cond_t drawn; /* a picture made */
    int stop;
    /* the newest field sampled, not yet drawn (under lock) */
    float *pending;            /* a host field's picture floats; NULL when the newest is on the device */
    int pending_w, pending_h;
    /* fields in device memory (lib/viewer_gpu.h): the newest one's slot (-1: none), and the slots
     * of fields it superseded whose copies may still be in flight (a bit a slot: the thread waits
     * for them, then frees them) */
    ks_vgpu *gpu;
    int dev_pending;
    unsigned dev_stale;
    long long dropped;         /* device fields dropped: both slots were taken */
    long long shown, taken; /* fields shown; the newest one the thread took */
    /* the newest picture (under lock) */
    unsigned char *rgba;
    int pic_w, pic_h;
    long long drawn_seq; /* the field it was drawn from */
    double pic_lo, pic_hi;
    series values[KS_VIEWER_SERIES];
    int nvalues;
    stage stages[KS_VIEW_STAGES];
    int nstages;
    float plot_x[KS_VIEW_PLOT], plot_y[KS_VIEW_PLOT];
    int plot_n;
    /* the page's and the window's input */
    int paused, steps, quit;
    int keys[KS_VIEWER_KEYS], nkeys, keys_dropped; /* the other keys, for ks_viewer_poll */
    /* what the display is made with, on the viewer's thread (create() waits for the outcome) */
    int serve;
    char serve_addr[KS_SERVE_ADDR_MAX], token[KS_SERVE_TOKEN_MAX];
    int serve_port;
    int want_window;
    char record[1024];
    int record_fps;
    int display_state;    /* 0 being made, 1 made, -1 failed (display_status and display_error say why) */
    ks_status display_status;
    char display_error[512];
    char url[KS_SERVE_ADDR_MAX + KS_SERVE_TOKEN_MAX + 64];
    ks_status rec_status; /* the video's first failure, for ks_viewer_close */
    char rec_error[512];
};

/* ---- the field ---------------------------------------------------------- */

static double value_at(const unsigned char *p, ks_viewer_dtype t)
{
    switch (t) {
    case KS_VIEWER_F64: { double d; memcpy(&d, p, sizeof d); return d; }
    case KS_VIEWER_U8: return (double)*p;
    case KS_VIEWER_I32: { int32_t i; memcpy(&i, p, sizeof i); return (double)i; }
    default: { float f; memcpy(&f, p, sizeof f); return (double)f; }
    }
}

static size_t dtype_bytes(ks_viewer_dtype t)
{
    return t == KS_VIEWER_F64 ? 8 : t == KS_VIEWER_U8 ? 1 : 4;
}

/* The slice's geometry: its width and height in cells, the byte steps along
 * them and where it starts. */
typedef struct slice {
    long long w, h;
    long long step_x, step_y;
    const unsigned char *base;
} slice;

/* |x| as an unsigned number (LLONG_MIN too). */
static unsigned long long magnitude(long long x)
{
    return x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
}

/* The field's strides in bytes (KS_VIEWER_BROADCAST as 0, a 0 as the axis before's stride times its
 * size), and a check that every point's address can be computed: the bytes the points reach below data
 * and above it, each |stride| * (size - 1) added up, span at most PTRDIFF_MAX bytes and stay inside
 * the address space. The library cannot know the buffer's size; it can refuse what no buffer could hold. */
static ks_status field_strides(const ks_viewer_field *f, long long elem, long long stride[3])
{
    unsigned long long below = 0, above = (unsigned long long)elem;
    for (int a = 0; a < f->dims; ++a) {
        long long st = f->stride[a];
        if (st == KS_VIEWER_BROADCAST) {
            st = 0;
        } else if (st == 0 && a > 0) {
            if (stride[a - 1] == 0)
                return ks_fail(KS_ERR_INVALID, "ks_viewer_show: stride[%d] is 0 (packed) after a broadcast axis: "
                                               "give it in bytes", a);
            if (__builtin_mul_overflow(stride[a - 1], f->size[a - 1], &st))
                return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the packed stride of axis %d overflows (sizes %lld x "
                                               "%lld x %lld)", a, f->size[0], f->size[1], f->size[2]);
        } else if (st == 0) {
            st = elem;
        }
        stride[a] = st;
        unsigned long long reach = 0;
        if (__builtin_mul_overflow(magnitude(st), (unsigned long long)(f->size[a] - 1), &reach) ||
            __builtin_add_overflow(st < 0 ? below : above, reach, st < 0 ? &below : &above) ||
            below > (unsigned long long)PTRDIFF_MAX || above > (unsigned long long)PTRDIFF_MAX ||
            below + above > (unsigned long long)PTRDIFF_MAX) /* each < 2^63 there: the sum cannot wrap */
            return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the field's extent overflows (size[%d] = %lld, stride "
                                           "%lld bytes)", a, f->size[a], st);
    }
    const uintptr_t at = (uintptr_t)f->data;
    if (at < below || UINTPTR_MAX - at < above)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the field runs off the address space (%llu bytes below data, "
                                       "%llu above)", below, above);
    if (f->memory == KS_VIEWER_DEVICE) { /* the kernel loads each point as its type: a misaligned one would fault */
        int aligned = at % (uintptr_t)elem == 0;
        for (int a = 0; a < f->dims; ++a) aligned = aligned && stride[a] % elem == 0;
        if (!aligned)
            return ks_fail(KS_ERR_INVALID, "ks_viewer_show: a field in device memory must be aligned: data and "
                                           "strides multiples of %lld bytes (make a contiguous copy)", elem);
    }
    return KS_OK;
}

static ks_status check_field(const ks_viewer_field *f, slice *s)
{
    if (!f) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: no field");
    if (f->memory != KS_VIEWER_HOST && f->memory != KS_VIEWER_DEVICE) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: unknown memory kind %d", (int)f->memory);
    if (f->dtype < KS_VIEWER_F32 || f->dtype > KS_VIEWER_I32)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: unknown dtype %d", (int)f->dtype);
    if (f->dims != 2 && f->dims != 3) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: dims must be 2 or 3, not %d", f->dims);
    if (!f->data) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the field has no data");
    for (int a = 0; a < f->dims; ++a)
        if (f->size[a] < 1 || f->size[a] > (1LL << 31))
            return ks_fail(KS_ERR_INVALID, "ks_viewer_show: size[%d] = %lld (1 .. 2^31)", a, f->size[a]);
    long long stride[3] = {0, 0, 0};
    KS_TRY(field_strides(f, (long long)dtype_bytes(f->dtype), stride));
    const unsigned char *base = f->data;
    if (f->dims == 2) {
        *s = (slice){f->size[0], f->size[1], stride[0], stride[1], base};
        return KS_OK;
    }
    if (f->slice_axis < 0 || f->slice_axis > 2)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: slice_axis %d (0: z, 1: x, 2: y)", f->slice_axis);
    const int across = f->slice_axis == 0 ? 2 : f->slice_axis == 1 ? 0 : 1; /* the axis the slice cuts */
    const long long n = f->size[across];
    if (f->slice < 0 || f->slice > n)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: slice %lld of %lld (counted from 1; 0: the middle)", f->slice, n);
    const long long index = f->slice ? f->slice - 1 : n / 2;
    base += index * stride[across]; /* inside the reach checked above */
    if (across == 2) *s = (slice){f->size[0], f->size[1], stride[0], stride[1], base};
    else if (across == 0) *s = (slice){f->size[1], f->size[2], stride[1], stride[2], base};
    else *s = (slice){f->size[0], f->size[2], stride[0], stride[2], base};
    return KS_OK;
}

/* The picture's size for a slice of w x h cells: the whole slice when it
 * fits, else scaled down to fit, the aspect kept. */
static void picture_size(const ks_viewer *v, long long w, long long h, int *pw, int *ph)
{
    double scale = 1.0;
    if (w > v->max_w) scale = (double)v->max_w / (double)w;
    if (h * scale > v->max_h) scale = (double)v->max_h / (double)h;
    *pw = (int)fmax(1.0, floor((double)w * scale + 0.5));
    *ph = (int)fmax(1.0, floor((double)h * scale + 0.5));
    if (*pw > w) *pw = (int)w;
    if (*ph > h) *ph = (int)h;
}

/* Picture pixel (px, py), rows top-down (the slice's last row at the top):
 * the mean of its cells, summed in double. */
static void sample(const slice *s, ks_viewer_dtype t, int pw, int ph, float *out)
{
    for (int py = 0; py < ph; ++py) {
        const int qy = ph - 1 - py; /* y grows upward */
        const long long y0 = (long long)qy * s->h / ph, y1 = (long long)(qy + 1) * s->h / ph;
        for (int px = 0; px < pw; ++px) {
            const long long x0 = (long long)px * s->w / pw, x1 = (long long)(px + 1) * s->w / pw;
            /* along a broadcast axis (a step of 0) every cell is the same one: read it once */
            const long long ye = s->step_y == 0 || y1 <= y0 ? y0 + 1 : y1, xe = s->step_x == 0 || x1 <= x0 ? x0 + 1 : x1;
            double sum = 0.0;
            for (long long y = y0; y < ye; ++y)
                for (long long x = x0; x < xe; ++x) sum += value_at(s->base + x * s->step_x + y * s->step_y, t);
            const long long cells = (ye - y0) * (xe - x0);
            out[(size_t)py * (size_t)pw + (size_t)px] = (float)(sum / (double)cells);
        }
    }
}

/* ---- the viewer's thread -------------------------------------------------- */

static void colormap(const ks_viewer *v, const float *val, int n, unsigned char *rgba, double *lo_out, double *hi_out)
{
    double lo = v->lo, hi = v->hi;
    if (lo == hi) { /* this picture's own range */
        lo = INFINITY;
        hi = -INFINITY;
        for (int i = 0; i < n; ++i)
            if (isfinite(val[i])) {
                lo = fmin(lo, val[i]);
                hi = fmax(hi, val[i]);
            }
        if (!(lo <= hi)) lo = hi = 0.0;
    }
    unsigned char table[256][4];
    ks_colormap_table_rgba(v->cmap, table);
    const float flo = (float)lo, inv = ks_colormap_inv_span((float)lo, (float)hi);
    for (int i = 0; i < n; ++i) memcpy(rgba + 4 * (size_t)i, table[ks_colormap_index(val[i], flo, inv)], 4);
    *lo_out = lo;
    *hi_out = hi;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The view the display shows (the window's panels, the page's state), lock held. */
static void make_view(ks_viewer *v, ks_view *view, int w)
{
    memset(view, 0, sizeof *view);
    snprintf(view->scene, sizeof view->scene, "%.31s", v->title); /* the page shows the scene name as its title */
    view->frame = v->drawn_seq;
    view->paused = v->paused;
    view->no_reset_save = 1;
    ks_view_num(view, KS_VGROUP_SCENE, "picture", w, "px wide", KS_VFMT_INT);
    ks_view_num(view, KS_VGROUP_SCENE, "fields shown", (double)v->shown, "", KS_VFMT_INT);
    for (int i = 0; i < v->nvalues; ++i) ks_view_num(view, KS_VGROUP_SCENE, v->values[i].name, v->values[i].last, "", KS_VFMT_G4);
    for (int i = 0; i < v->nstages; ++i) { /* median and minimum of each stage's window */
        const stage *st = &v->stages[i];
        double sorted[KS_VIEWER_STAGE_WINDOW];
        memcpy(sorted, st->ms, (size_t)st->n * sizeof *sorted);
        qsort(sorted, (size_t)st->n, sizeof *sorted, cmp_double);
        ks_vstage *vs = &view->stages[view->nstages++];
        snprintf(vs->name, sizeof vs->name, "%s", st->name);
        vs->median_ms = sorted[st->n / 2];
        vs->min_ms = sorted[0];
        vs->samples = st->n;
    }
    view->colorbar.on = 1;
    view->colorbar.cmap = v->cmap;
    snprintf(view->colorbar.label, sizeof view->colorbar.label, "value");
    view->colorbar.lo = v->pic_lo;
    view->colorbar.hi = v->pic_hi;
    if (v->nvalues) {
        snprintf(view->plot.title, sizeof view->plot.title, "log10 %s", v->values[0].name);
        view->plot.n = v->plot_n;
        memcpy(view->plot.x, v->plot_x, sizeof view->plot.x);
        memcpy(view->plot.y, v->plot_y, sizeof view->plot.y);
    }
    view->help_global = "Keys\n  Space      pause / resume (ks_viewer_poll)\n  N          one step (while paused)\n"
                        "  Esc / Q    quit\n";
}

_Static_assert(KS_KEY_HOME - KS_KEY_TAB == KS_VIEWER_KEY_HOME - KS_VIEWER_KEY_TAB &&
                   KS_KEY_PERIOD - KS_KEY_TAB == KS_VIEWER_KEY_PERIOD - KS_VIEWER_KEY_TAB,
               "the public keys follow render/window.h's order from Tab to Home");

/* One more key for the program's poll (lock held). */
static void put_key(ks_viewer *v, int key)
{
    if (v->nkeys < KS_VIEWER_KEYS) v->keys[v->nkeys++] = key;
    else ++v->keys_dropped;
}

/* A key from the window, its panels or the page (lock held): Space pauses and resumes, N steps, Q or Escape stops. */
static void take_key(ks_viewer *v, int key)
{
    if (key == KS_KEY_SPACE) v->paused = !v->paused;
    else if (key == 'N') ++v->steps;
    else if (key == 'Q' || key == KS_KEY_ESCAPE) v->quit = 1;
    else if (key >= KS_KEY_TAB && key <= KS_KEY_HOME) put_key(v, KS_VIEWER_KEY_TAB + (key - KS_KEY_TAB));
    else if ((key >= 'A' && key <= 'Z') || (key >= '0' && key <= '9')) put_key(v, key);
}

static void take_input(ks_viewer *v)
{
    ks_display_poll(v->display);
    ks_window *win = ks_display_window(v->display);
    ks_key_event key;
    ks_input_event ev;
    pthread_mutex_lock(&v->lock);
    while (ks_window_next_key(win, &key)) take_key(v, key.key);
    if (win && ks_window_should_close(win)) v->quit = 1;
    while (ks_display_next_input(v->display, &ev))
        if (ev.type == KS_INPUT_KEY) take_key(v, ev.key);
    pthread_mutex_unlock(&v->lock);
}

/* CLOCK_REALTIME seconds from now, for pthread_cond_timedwait. */
static struct timespec deadline_in(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    const long long ns = (long long)t.tv_nsec + (long long)(seconds * 1e9);
    t.tv_sec += (time_t)(ns / 1000000000LL);
    t.tv_nsec = (long)(ns % 1000000000LL);
    return t;
}

/* Waits (lock held) until the last field shown is drawn, KS_VIEWER_SAVE_WAIT_S at most. */
static void wait_drawn(ks_viewer *v)
{
    const struct timespec until = deadline_in(KS_VIEWER_SAVE_WAIT_S);
    while (v->drawn_seq < v->shown && pthread_cond_timedwait(&v->drawn, &v->lock, &until) == 0) {}
}

/* The display, made here on the thread that draws with it: with desc.window,
 * a window (GL, the app's panels); otherwise no GL, the pictures go to the page
 * and the video as they are. create() waits for the outcome. */
static ks_status make_display(ks_viewer *v)
{
    ks_display_desc dd = {0};
    dd.gl = v->want_window;
    dd.window = (ks_window_desc){KS_VIEWER_WINDOW_W, KS_VIEWER_WINDOW_H, 0, 0, v->title};
    dd.max_width = v->max_w;
    dd.max_height = v->max_h;
    dd.panels = v->want_window;
    dd.video_fps = v->record_fps;
    const ks_display_serve_desc sd = {.addr = v->serve_addr, .port = v->serve_port, .token = v->token,
                                      .fps = KS_VIEWER_PAGE_FPS};
    if (v->serve) dd.serve = &sd;
    KS_TRY(ks_display_create(&dd, &v->display));
    if (v->serve) snprintf(v->url, sizeof v->url, "%s", ks_display_serve_url(ks_display_page(v->display)));
    if (!v->record[0]) return KS_OK;
    int w = 0, h = 0; /* a window's frame as shown; without one, the first picture's size */
    ks_window_size(ks_display_window(v->display), &w, &h);
    return ks_display_video_start(ks_display_video_of(v->display), v->record, w, h, 0);
}

/* The frame through the display (lock not held): the picture, or the last one again (redraw). */
static void show_frame(ks_viewer *v, const unsigned char *rgba, int w, int h, int redraw)
{
    static _Thread_local ks_view view; /* large: not on the stack */
    pthread_mutex_lock(&v->lock);
    make_view(v, &view, w);
    pthread_mutex_unlock(&v->lock);
    const ks_display_frame f = {.view = &view, .rgba = rgba, .width = w, .height = h, .panels = 1, .redraw = redraw};
    char msg[512];
    ks_ui_actions act;
    if (ks_display_show(v->display, &f, &act, msg, sizeof msg) != KS_OK)
        ks_error_clear(); /* a window or page that failed this frame tries again with the next */
    pthread_mutex_lock(&v->lock);
    for (int i = 0; i < act.nkeys; ++i) take_key(v, act.keys[i].key); /* the panel's buttons */
    pthread_mutex_unlock(&v->lock);
    if (msg[0] && v->rec_status == KS_OK) { /* the video failed and stopped; the page and the window go on */
        v->rec_status = KS_ERR_IO;
        snprintf(v->rec_error, sizeof v->rec_error, "%s", msg);
    }
}

/* The end of the thread: the video ends on the last picture, then the display goes. */
static void finish_display(ks_viewer *v, const unsigned char *rgba, int w, int h)
{
    ks_display_video *video = ks_display_video_of(v->display);
    ks_status st = v->rec_status == KS_OK && rgba ? ks_display_video_last(video, ks_display_renderer(v->display),
                                                                         v->want_window ? NULL : rgba, w, h)
                                                  : KS_OK;
    if (st == KS_OK) st = ks_display_video_stop(video, NULL, 0);
    if (st != KS_OK && v->rec_status == KS_OK) {
        v->rec_status = st;
        snprintf(v->rec_error, sizeof v->rec_error, "%s", ks_error_message());
    }
    ks_display_destroy(v->display);
    v->display = NULL;
}

static void *viewer_main(void *arg)
{
    ks_viewer *v = arg;
    float *field = NULL;
    unsigned char *rgba = NULL;
    size_t cap = 0;
    int pic_w = 0, pic_h = 0; /* the last picture drawn */
    const ks_status made = make_display(v);
    pthread_mutex_lock(&v->lock);
    v->display_state = made == KS_OK ? 1 : -1;
    v->display_status = made;
    if (made != KS_OK) snprintf(v->display_error, sizeof v->display_error, "%s", ks_error_message());
    pthread_cond_broadcast(&v->drawn);
    if (made != KS_OK) {
        pthread_mutex_unlock(&v->lock);
        ks_display_destroy(v->display);
        v->display = NULL;
        return NULL;
    }
    while (!v->stop) {
        if (v->shown == v->taken) {
            /* a page's keys and state come in now and then even when nothing is shown; a
             * window's events more often, and its picture drawn again (a resize, an expose) */
            const struct timespec until = deadline_in(v->want_window ? 0.03 : 0.1);
            pthread_cond_timedwait(&v->wake, &v->lock, &until);
            pthread_mutex_unlock(&v->lock);
            take_input(v);
            if (v->want_window && pic_w) show_frame(v, rgba, pic_w, pic_h, 1);
            pthread_mutex_lock(&v->lock);
            continue;
        }
        /* superseded device fields: their copies end before their slots are used again */
        const unsigned stale = v->dev_stale;
        const int dev = v->dev_pending;
        v->dev_stale = 0;
        v->dev_pending = -1;
        for (int k = 0; k < KS_VGPU_SLOTS; ++k) {
            if (!(stale >> k & 1u)) continue;
            const float *ignored;
            pthread_mutex_unlock(&v->lock);
            (void)ks_vgpu_wait(v->gpu, k, &ignored); /* a failure shows again on the newest */
            pthread_mutex_lock(&v->lock);
            ks_vgpu_release(v->gpu, k);
        }
        /* take the newest field: swap buffers, so show() never waits for a picture */
        const int w = v->pending_w, h = v->pending_h;
        const size_t n = (size_t)w * (size_t)h;
        if (n > cap) {
            float *f = realloc(field, n * sizeof *f);
            if (f) field = f;
            unsigned char *r = f ? malloc(n * 4) : NULL;
            if (!f || !r) { /* out of memory: this field is dropped */
                free(r);
                if (dev >= 0) ks_vgpu_release(v->gpu, dev);
                v->taken = v->shown;
                continue;
            }
            free(rgba);
            rgba = r;
            cap = n;
        }
        const long long seq = v->taken = v->shown;
        if (dev < 0) memcpy(field, v->pending, n * sizeof *field);
        pthread_mutex_unlock(&v->lock);
        if (dev >= 0) { /* its floats come from the device: wait for the copy here, never in show() */
            const float *host = NULL;
            const ks_status got = ks_vgpu_wait(v->gpu, dev, &host);
            if (got == KS_OK) memcpy(field, host, n * sizeof *field);
            pthread_mutex_lock(&v->lock);
            ks_vgpu_release(v->gpu, dev);
            pthread_mutex_unlock(&v->lock);
            if (got != KS_OK) { /* a CUDA error of the caller's stream: the picture is left as it was */
                pthread_mutex_lock(&v->lock);
                v->drawn_seq = seq;
                pthread_cond_broadcast(&v->drawn);
                continue;
            }
        }
        double lo, hi;
        colormap(v, field, (int)n, rgba, &lo, &hi);
        pthread_mutex_lock(&v->lock);
        unsigned char *keep = realloc(v->rgba, n * 4);
        if (keep) {
            v->rgba = keep;
            memcpy(v->rgba, rgba, n * 4);
            v->pic_w = w;
            v->pic_h = h;
            v->pic_lo = lo;
            v->pic_hi = hi;
            v->drawn_seq = seq;
        }
        pthread_cond_broadcast(&v->drawn);
        pthread_mutex_unlock(&v->lock);
        pic_w = w;
        pic_h = h;
        show_frame(v, rgba, w, h, 0);
        take_input(v);
        pthread_mutex_lock(&v->lock);
    }
    pthread_mutex_unlock(&v->lock);
    finish_display(v, rgba, pic_w, pic_h);
    free(field);
    free(rgba);
    return NULL;
}

/* ---- the calls ------------------------------------------------------------ */

static ks_status create(const ks_viewer_desc *d, ks_viewer **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "ks_viewer_create: no place for the viewer");
    *out = NULL;
    const ks_viewer_desc desc = d ? *d : (ks_viewer_desc){0};
    ks_colormap cmap = KS_CMAP_VIRIDIS;
    if (desc.colormap && ks_colormap_parse(desc.colormap, &cmap) != 0) {
        char names[128];
        ks_colormap_list(names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: unknown colormap '%.40s' (%s)", desc.colormap, names);
    }
    if (!isfinite(desc.range[0]) || !isfinite(desc.range[1]) || desc.range[0] > desc.range[1])
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: range %g .. %g (lo <= hi, finite; equal: automatic)",
                       desc.range[0], desc.range[1]);
    if (desc.max_width < 0 || desc.max_height < 0 || desc.max_width > KS_VIEWER_SIDE_MAX ||
        desc.max_height > KS_VIEWER_SIDE_MAX)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: max_width / max_height 0 .. %d, got %d x %d",
                       KS_VIEWER_SIDE_MAX, desc.max_width, desc.max_height);
    if (desc.record_fps < 0 || desc.record_fps > 240)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: record_fps 0 .. 240, got %d", desc.record_fps);
    if (desc.record) {
        if (strlen(desc.record) >= 1024) return ks_fail(KS_ERR_INVALID, "ks_viewer_create: record: the path is too long");
        ks_status st = ks_recorder_check_path(desc.record);
        if (st != KS_OK) {
            ks_error_prefix("ks_viewer_create: record");
            return st;
        }
    }
    if (desc.title && strlen(desc.title) >= 32)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: a title of at most 31 bytes");
    if (desc.window != 0 && desc.window != 1) return ks_fail(KS_ERR_INVALID, "ks_viewer_create: window is 0 or 1, got %d", desc.window);
    if (desc.window) {
        const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
        if (!(x && *x) && !(wl && *wl))
            return ks_fail(KS_ERR_GL, "ks_viewer_create: window: no display (set DISPLAY, or serve the page instead)");
    }
    if (desc.window && !take_window())
        return ks_fail(KS_ERR_UNSUPPORTED, "ks_viewer_create: window: another viewer of this process has a window "
                                           "(one at a time)");
    ks_viewer *v = calloc(1, sizeof *v);
    if (!v) {
        if (desc.window) give_window();
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_create: out of host memory");
    }
    snprintf(v->title, sizeof v->title, "%s", desc.title ? desc.title : "kernelscope");
    v->cmap = cmap;
    v->lo = desc.range[0];
    v->hi = desc.range[1];
    v->max_w = desc.max_width ? desc.max_width : KS_VIEWER_SIDE;
    v->max_h = desc.max_height ? desc.max_height : KS_VIEWER_SIDE;
    if (desc.record) snprintf(v->record, sizeof v->record, "%s", desc.record);
    v->record_fps = desc.record_fps ? desc.record_fps : 30;
    v->want_window = desc.window != 0;
    v->dev_pending = -1;
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->wake, NULL);
    pthread_cond_init(&v->drawn, NULL);
    ks_status st = KS_OK;
    if (desc.serve) { /* checked here; the page itself is the display's (display/display_serve.h) */
        v->serve = 1;
        st = ks_serve_parse_listen(desc.serve, v->serve_addr, &v->serve_port);
        if (st == KS_OK && desc.token) {
            st = ks_serve_check_token_text(desc.token);
            if (st == KS_OK) snprintf(v->token, sizeof v->token, "%s", desc.token);
        }
    }
    if (st == KS_OK) {
        if (pthread_create(&v->thread, NULL, viewer_main, v) != 0)
            st = ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_create: cannot start the viewer's thread");
        else v->thread_started = 1;
    }
    if (st == KS_OK) { /* the thread makes the display (the window, the page); its outcome is ours */
        pthread_mutex_lock(&v->lock);
        while (v->display_state == 0) pthread_cond_wait(&v->drawn, &v->lock);
        pthread_mutex_unlock(&v->lock);
        if (v->display_state < 0)
            st = ks_fail(v->display_status, "ks_viewer_create: %s%s", v->want_window ? "window: " : "",
                         v->display_error);
    }
    if (st != KS_OK) {
        ks_viewer_destroy(v);
        return st;
    }
    *out = v;
    return KS_OK;
}

int ks_viewer_create(const ks_viewer_desc *desc, ks_viewer **out) { return result(create(desc, out)); }

/* A field in device memory: its picture sampled and copied on the caller's
 * stream, into a free slot; with none free the field is dropped. */
static ks_status show_device(ks_viewer *v, const ks_viewer_field *f, const slice *s, int pw, int ph)
{
    const ks_vgpu_job job = {s->base, s->w, s->h, s->step_x, s->step_y, (int)f->dtype, pw, ph, f->stream};
    pthread_mutex_lock(&v->lock);
    ks_status st = v->gpu ? KS_OK : ks_vgpu_create(&v->gpu);
    int slot = -1;
    if (st == KS_OK) st = ks_vgpu_enqueue(v->gpu, &job, &slot);
    if (st == KS_OK && slot < 0) {
        ++v->dropped;
    } else if (st == KS_OK) {
        if (v->dev_pending >= 0) v->dev_stale |= 1u << v->dev_pending; /* the thread waits for it, then frees it */
        v->dev_pending = slot;
        free(v->pending);
        v->pending = NULL;
        v->pending_w = pw;
        v->pending_h = ph;
        ++v->shown;
        pthread_cond_signal(&v->wake);
    }
    pthread_mutex_unlock(&v->lock);
    return st;
}

static ks_status show(ks_viewer *v, const ks_viewer_field *f)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: no viewer");
    slice s = {0};
    KS_TRY(check_field(f, &s));
    int pw, ph;
    picture_size(v, s.w, s.h, &pw, &ph);
    if (f->memory == KS_VIEWER_DEVICE) return show_device(v, f, &s, pw, ph);
    const size_t n = (size_t)pw * (size_t)ph;
    float *buf = malloc(n * sizeof *buf);
    if (!buf) return ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_show: out of host memory for a %d x %d picture", pw, ph);
    sample(&s, f->dtype, pw, ph, buf);
    pthread_mutex_lock(&v->lock);
    free(v->pending); /* a field not yet drawn is dropped: the newest wins */
    v->pending = buf;
    if (v->dev_pending >= 0) v->dev_stale |= 1u << v->dev_pending; /* superseded, its copy maybe in flight */
    v->dev_pending = -1;
    v->pending_w = pw;
    v->pending_h = ph;
    ++v->shown;
    pthread_cond_signal(&v->wake);
    pthread_mutex_unlock(&v->lock);
    return KS_OK;
}

int ks_viewer_show(ks_viewer *v, const ks_viewer_field *field) { return result(show(v, field)); }

/* The index of name among *count names (name_cap bytes each, the first member
 * of records stride bytes apart from base), added at the end when it is new;
 * -1 when it is new and there are max already. Lock held. */
_Static_assert(offsetof(series, name) == 0 && offsetof(stage, name) == 0, "name_index reads the names first");
static int name_index(void *base, size_t stride, size_t name_cap, int *count, int max, const char *name)
{
    for (int i = 0; i < *count; ++i)
        if (strcmp((const char *)base + (size_t)i * stride, name) == 0) return i;
    if (*count == max) return -1;
    snprintf((char *)base + (size_t)*count * stride, name_cap, "%s", name);
    return (*count)++;
}

static ks_status value(ks_viewer *v, const char *name, double x)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "ks_viewer_value: no viewer");
    if (!name || !name[0] || strlen(name) >= sizeof v->values[0].name)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_value: a name of 1 to %zu bytes", sizeof v->values[0].name - 1);
    pthread_mutex_lock(&v->lock);
    const int i = name_index(v->values, sizeof v->values[0], sizeof v->values[0].name, &v->nvalues, KS_VIEWER_SERIES,
                             name);
    if (i < 0) {
        pthread_mutex_unlock(&v->lock);
        return ks_fail(KS_ERR_INVALID, "ks_viewer_value: at most %d series ('%.40s' is one more)", KS_VIEWER_SERIES,
                       name);
    }
    series *s = &v->values[i];
    s->last = x;
    if (i == 0 && x > 0 && isfinite(x)) { /* the plot, log10 as a convergence plot: its newest KS_VIEW_PLOT points */
        if (v->plot_n == KS_VIEW_PLOT) {
            memmove(v->plot_x, v->plot_x + 1, sizeof v->plot_x - sizeof v->plot_x[0]);
            memmove(v->plot_y, v->plot_y + 1, sizeof v->plot_y - sizeof v->plot_y[0]);
            --v->plot_n;
        }
        v->plot_x[v->plot_n] = (float)s->count;
        v->plot_y[v->plot_n++] = (float)log10(x);
    }
    ++s->count;
    pthread_mutex_unlock(&v->lock);
    return KS_OK;
}

int ks_viewer_value(ks_viewer *v, const char *name, double x) { return result(value(v, name, x)); }

/* The index of stage name (added when new), or -1 with the error set. Lock held. */
static int stage_index(ks_viewer *v, const char *call, const char *name)
{
    const int i = name_index(v->stages, sizeof v->stages[0], sizeof v->stages[0].name, &v->nstages, KS_VIEW_STAGES,
                             name);
    if (i < 0) ks_fail(KS_ERR_INVALID, "%s: at most %d stages ('%.31s' is one more)", call, KS_VIEW_STAGES, name);
    return i;
}

/* One more timing of stage i, into its window of the newest. Lock held. */
static void stage_add(ks_viewer *v, int i, double ms)
{
    stage *s = &v->stages[i];
    s->ms[s->next] = ms;
    s->next = (s->next + 1) % KS_VIEWER_STAGE_WINDOW;
    if (s->n < KS_VIEWER_STAGE_WINDOW) ++s->n;
}

static ks_status check_stage_name(const ks_viewer *v, const char *call, const char *name)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "%s: no viewer", call);
    if (!name || !name[0] || strlen(name) >= sizeof v->stages[0].name)
        return ks_fail(KS_ERR_INVALID, "%s: a stage name of 1 to %zu bytes", call, sizeof v->stages[0].name - 1);
    return KS_OK;
}

static ks_status stage_ms(ks_viewer *v, const char *name, double ms)
{
    KS_TRY(check_stage_name(v, "ks_viewer_stage_ms", name));
    if (!isfinite(ms) || ms < 0) return ks_fail(KS_ERR_INVALID, "ks_viewer_stage_ms: %g ms (finite, >= 0)", ms);
    pthread_mutex_lock(&v->lock);
    const int i = stage_index(v, "ks_viewer_stage_ms", name);
    if (i >= 0) stage_add(v, i, ms);
    pthread_mutex_unlock(&v->lock);
    return i >= 0 ? KS_OK : KS_ERR_INVALID;
}

/* Your events: the time between them once both have happened, read without
 * waiting (lib/viewer_gpu.h). A pair still on its way when the next comes
 * is replaced by it: events used again every iteration give every iteration
 * the library finds done, not each one. */
static ks_status stage_events(ks_viewer *v, const char *name, void *start, void *end)
{
    KS_TRY(check_stage_name(v, "ks_viewer_stage", name));
    if (!start || !end) return ks_fail(KS_ERR_INVALID, "ks_viewer_stage: a start and an end event (cudaEvent_t)");
    pthread_mutex_lock(&v->lock);
    const int i = stage_index(v, "ks_viewer_stage", name);
    ks_status st = i >= 0 ? KS_OK : KS_ERR_INVALID;
    stage *s = i >= 0 ? &v->stages[i] : NULL;
    int ready = 0;
    double ms = 0.0;
    if (s && s->ev_pending && (s->ev_start != start || s->ev_end != end)) { /* the pair before, done by now? */
        st = ks_vgpu_event_ms(s->ev_start, s->ev_end, &ready, &ms);
        if (st == KS_OK && ready) stage_add(v, i, ms);
        s->ev_pending = 0;
    }
    if (s && st == KS_OK) {
        st = ks_vgpu_event_ms(start, end, &ready, &ms);
        if (st == KS_OK && ready) stage_add(v, i, ms);
        s->ev_start = start;
        s->ev_end = end;
        s->ev_pending = st == KS_OK && !ready;
    }
    pthread_mutex_unlock(&v->lock);
    return st;
}

int ks_viewer_stage(ks_viewer *v, const char *name, void *start_event, void *end_event)
{
    return result(stage_events(v, name, start_event, end_event));
}

int ks_viewer_stage_ms(ks_viewer *v, const char *name, double ms) { return result(stage_ms(v, name, ms)); }

static ks_status save(ks_viewer *v, const char *path, int *width, int *height)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "ks_viewer_save: no viewer");
    if (!path || !path[0]) return ks_fail(KS_ERR_INVALID, "ks_viewer_save: no path");
    pthread_mutex_lock(&v->lock);
    if (!v->shown) {
        pthread_mutex_unlock(&v->lock);
        return ks_fail(KS_ERR_INVALID, "ks_viewer_save: no field shown yet");
    }
    wait_drawn(v);
    const int w = v->pic_w, h = v->pic_h;
    unsigned char *copy = v->rgba ? malloc((size_t)w * (size_t)h * 4) : NULL;
    if (copy) memcpy(copy, v->rgba, (size_t)w * (size_t)h * 4);
    pthread_mutex_unlock(&v->lock);
    if (!copy) return ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_save: no picture (out of memory)");
    const ks_status st = ks_image_write(path, KS_FMT_PNG, copy, w, h);
    free(copy);
    if (st == KS_OK && width) *width = w;
    if (st == KS_OK && height) *height = h;
    return st;
}

int ks_viewer_save(ks_viewer *v, const char *path, int *width, int *height)
{
    return result(save(v, path, width, height));
}

int ks_viewer_poll(ks_viewer *v, ks_viewer_input *input)
{
    if (!v || !input) return result(ks_fail(KS_ERR_INVALID, "ks_viewer_poll: no viewer or no input to fill"));
    pthread_mutex_lock(&v->lock);
    input->paused = v->paused;
    input->steps = v->steps;
    input->quit = v->quit;
    input->nkeys = v->nkeys;
    memcpy(input->keys, v->keys, sizeof input->keys);
    input->keys_dropped = v->keys_dropped;
    v->nkeys = v->keys_dropped = 0;
    v->steps = 0;
    if (input->steps) v->paused = 1; /* a step pauses after it, as in the live view */
    pthread_mutex_unlock(&v->lock);
    return result(KS_OK);
}

const char *ks_viewer_url(const ks_viewer *v) { return v ? v->url : ""; }

const char *ks_viewer_key_name(int key)
{
    static const char *const digits[10] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    static const char *const more[] = {"period", "comma", "home"}; /* the window's only */
    if (key >= '0' && key <= '9') return digits[key - '0'];
    if (key >= 'A' && key <= 'Z') return ks_serve_key_name(key);
    if (key < KS_VIEWER_KEY_TAB || key > KS_VIEWER_KEY_HOME) return NULL;
    const int internal = KS_KEY_TAB + (key - KS_VIEWER_KEY_TAB);
    if (internal >= KS_KEY_PERIOD) return more[internal - KS_KEY_PERIOD];
    return ks_serve_key_name(internal);
}

static ks_status close_viewer(ks_viewer *v)
{
    if (!v) return KS_OK;
    if (v->thread_started) { /* the last field shown is drawn (and recorded) before the thread ends */
        pthread_mutex_lock(&v->lock);
        wait_drawn(v);
        pthread_mutex_unlock(&v->lock);
    }
    ks_status st = KS_OK;
    char why[512] = "";
    if (v->thread_started) {
        pthread_mutex_lock(&v->lock);
        v->stop = 1;
        pthread_cond_signal(&v->wake);
        pthread_mutex_unlock(&v->lock);
        pthread_join(v->thread, NULL);
    }
    if (v->rec_status != KS_OK) { /* the thread finished the video, or found it failed */
        st = v->rec_status;
        snprintf(why, sizeof why, "%s", v->rec_error);
    }
    if (v->want_window) give_window();
    ks_vgpu_destroy(v->gpu);
    free(v->pending);
    free(v->rgba);
    pthread_cond_destroy(&v->wake);
    pthread_cond_destroy(&v->drawn);
    pthread_mutex_destroy(&v->lock);
    free(v);
    return st == KS_OK ? KS_OK : ks_fail(st, "ks_viewer_close: the recording: %s", why);
}

int ks_viewer_close(ks_viewer *v) { return result(close_viewer(v)); }

void ks_viewer_destroy(ks_viewer *v) { (void)close_viewer(v); }
