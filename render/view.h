/* The view model: what a frame shows besides the picture, as data. Scenes fill
 * it (named fields with units, a stage table, an A/B table, a colour bar, a
 * plot series, controls), the live loop adds frame-level fields, and every
 * reader (the ImGui panels, the JSON for the browser, the timing CSV) reads
 * the same struct. Numbers stay numbers until the reader formats them. */
#ifndef KS_VIEW_H
#define KS_VIEW_H

#include <stddef.h>

#include "base/colormap.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KS_VIEW_FIELDS = 48,   /* named fields (a Laplace frame on CUDA fills 35) */
    KS_VIEW_STAGES = 16,   /* stage timings rows */
    KS_VIEW_COLS = 4,      /* table value columns */
    KS_VIEW_ROWS = 8,      /* table rows */
    KS_VIEW_PLOT = 512,    /* plot points */
    KS_VIEW_CONTROLS = 8,  /* mouse controls */
    KS_VIEW_CHOICES = 16,  /* choices per control */
    KS_VIEW_NAME = 48,     /* labels, names */
    KS_VIEW_TEXT = 256,    /* text values, hover, message */
    KS_VIEW_ROOF = 8,      /* roofline points (one per kernel variant) */
    KS_VIEW_HIST = 256,    /* colour-bar histogram bins */
};

/* One kernel variant on the roofline: model counts of one launch (or frame)
 * and its measured time. The counts come from the scene's model of what the
 * kernel must do (flops of the formula, bytes it must move to or from DRAM),
 * not from hardware counters. */
typedef struct ks_vroof_point {
    char name[24];
    double flops; /* model FLOPs */
    double bytes; /* model DRAM bytes */
    double ms;    /* measured time of the same launch / frame */
} ks_vroof_point;

/* The roofline: ceilings measured at start-up on this device and the points
 * of the variants seen so far (the current one included). */
typedef struct ks_vroof {
    int on;                   /* 1: the scene filled it */
    int show;                 /* 1: the panel is open (set by the live loop) */
    double peak_gbs;          /* copy bandwidth ceiling, GB/s */
    double peak_gflops;       /* FP32 FMA ceiling, GFLOP/s; 0: not measured (note says why) */
    char note[KS_VIEW_NAME * 2];
    char what[KS_VIEW_NAME];  /* what one point times: "one iteration", "one frame" */
    int n, current;           /* points; index of the current variant (-1: none yet) */
    ks_vroof_point pts[KS_VIEW_ROOF];
} ks_vroof;

/* Which panel a field belongs to. */
typedef enum ks_vgroup {
    KS_VGROUP_SCENE = 0, /* scene: grid, iterations, residual, range... */
    KS_VGROUP_KERNEL,    /* kernel: variant, block, registers, bandwidth... */
    KS_VGROUP_FRAME,     /* frame: fps, device, backend (added by the live loop) */
    KS_VGROUP_NUM
} ks_vgroup;

/* How a numeric value is written (the JSON always carries the full double). */
typedef enum ks_vfmt {
    KS_VFMT_G4 = 0, /* %.4g */
    KS_VFMT_INT,    /* %.0f */
    KS_VFMT_F1,     /* %.1f */
    KS_VFMT_F2,     /* %.2f */
    KS_VFMT_F3,     /* %.3f */
    KS_VFMT_F4,     /* %.4f */
    KS_VFMT_SCI,    /* %.3e */
    KS_VFMT_PCT,    /* value in 0..1 written as %.0f%% */
    KS_VFMT_NUM
} ks_vfmt;

typedef struct ks_vfield {
    ks_vgroup group;
    char label[KS_VIEW_NAME]; /* "grid", "T_eff" */
    char unit[16];            /* "GB/s", "ms", "" */
    int is_text;              /* 1: text holds the value; 0: value */
    double value;
    char text[KS_VIEW_TEXT];      /* long enough for a variant summary */
    ks_vfmt fmt;
} ks_vfield;

typedef struct ks_vstage {
    char name[32];    /* "jacobi", "frame" */
    double median_ms; /* over the timer's window */
    double min_ms;
    int samples;
} ks_vstage;

typedef struct ks_vrow {
    char label[24];
    double cell[KS_VIEW_COLS];
    int selected;                /* the row in use */
    char note[KS_VIEW_NAME * 2]; /* instead of numbers, e.g. why n/a */
} ks_vrow;

/* A small table of numbers (spheres' A/B table); NaN cells show as "-". */
typedef struct ks_vtable {
    char title[KS_VIEW_NAME * 2];
    int ncols;
    char cols[KS_VIEW_COLS][24];  /* column headers */
    char units[KS_VIEW_COLS][12]; /* their units ("ms", "x") */
    ks_vfmt fmts[KS_VIEW_COLS];
    int nrows;
    ks_vrow rows[KS_VIEW_ROWS];
} ks_vtable;

/* Something the mouse can change. Every change is a key press (the same path
 * as the keyboard): prev/next buttons send key_prev/key_next; picking a choice
 * sends choice_key[j] when set, else key_next (j - current) mod n times. */
typedef struct ks_vcontrol {
    char label[24];        /* "kernel", "block", "colormap" */
    char value[KS_VIEW_NAME];
    int key_prev, key_next; /* ks_key codes; 0: no such button */
    int nchoices;           /* 0: buttons only */
    int current;
    char choices[KS_VIEW_CHOICES][24];
    int choice_key[KS_VIEW_CHOICES]; /* 0: cycle with key_next */
} ks_vcontrol;

/* A caption drawn over the picture with the panels (the strips of reduce's
 * picture): its top-left corner at a fraction of the picture, x from the left,
 * y from the top. */
enum { KS_VIEW_LABELS = 8 };
typedef struct ks_vlabel {
    float x, y;
    char text[64];
} ks_vlabel;

/* The Hardware panel: counters of one launch of the kernel that runs, read by
 * the GPU itself (counters/counters.h), as rows of text a learner reads; or,
 * when there are none, why. The live loop fills it (app/live/live_counters.h);
 * its rows are ks_counters_rows' rows, copied (render/ does not include
 * counters/). */
enum { KS_VIEW_HW_ROWS = 24 };
typedef struct ks_vhw_row {
    char key[32];    /* stable id: "dram_read", "stall_1" */
    char label[64];  /* "DRAM read" */
    char value[48];  /* "268.4"; "absent" where the GPU lacks the metric */
    char unit[16];   /* "MB", "%" */
    char hover[200]; /* the ncu metric name(s) it came from */
    char words[160]; /* a line in a learner's words, "" none */
    double number;   /* the value in the row's unit; NaN when absent */
    int present;
} ks_vhw_row;

typedef struct ks_vhardware {
    int on;                    /* 1: the panel is shown (a scene with GPU kernels, or why there are none) */
    int open;                  /* 1: shown open (K, the Measure button or --counters-every asked for it) */
    char why[KS_VIEW_TEXT];    /* why there are no counters, in words; "" when there are */
    char what[KS_VIEW_TEXT];   /* what one measurement launches: "one Jacobi launch of kmarch, 32x4 block" */
    char kernel[160];          /* the kernel(s) measured, as the GPU names them */
    char status[KS_VIEW_TEXT]; /* "measured at frame 120 in 312 ms (7 replay passes)" */
    char every[KS_VIEW_TEXT];  /* --counters-every: the interval in force and why; "" off */
    int measurements;          /* made so far (0: none yet) */
    long long frame;           /* the frame after which the shown one was made; -1 none */
    double cost_ms;            /* what the shown measurement cost the frame */
    int stale;                 /* 1: what runs changed since; the next measurement is on its way */
    int nrows;
    ks_vhw_row rows[KS_VIEW_HW_ROWS];
} ks_vhardware;

/* The timeline strip under the picture: DRAM throughput and SM activity
 * sampled by the GPU every few tens of microseconds over the last window, in
 * columns, and each kernel's span as a mark (counters/timeline.h). */
enum { KS_VIEW_STRIP = 480, KS_VIEW_MARKS = 96 };
typedef struct ks_vmark {
    int x0, x1;     /* columns [x0, x1) */
    int count;      /* kernels of this name back to back in it */
    int label;      /* 1: wide enough for its name */
    char name[48];
} ks_vmark;

typedef struct ks_vtimeline {
    int on;                    /* 1: asked for (--timeline, T): the strip, or why there is none */
    char why[KS_VIEW_TEXT];    /* why nothing is sampled; "" while sampling */
    char note[KS_VIEW_TEXT];   /* the sampler's state in a few words: interval, clock, drops */
    double window_ms;          /* time the strip spans, ending at its newest sample */
    double interval_us;        /* sampling interval */
    int n;                     /* columns (0: nothing yet) */
    float dram[KS_VIEW_STRIP]; /* DRAM throughput per column, % of peak; NaN: no sample */
    float sm[KS_VIEW_STRIP];   /* SMs active, % */
    double dram_mean, sm_mean; /* over the window; NaN: none */
    int nmarks;
    ks_vmark marks[KS_VIEW_MARKS];
} ks_vtimeline;

/* What the banner says: an error (red) or a notice of something done ("saved ..."). */
typedef enum ks_vmessage_kind {
    KS_VMSG_ERROR = 0, /* the default: a message of unknown kind is shown as the error it may be */
    KS_VMSG_NOTICE,
    KS_VMSG_NUM
} ks_vmessage_kind;

typedef struct ks_view {
    char scene[32];            /* "laplace3d", also the saved files' prefix */
    char image_name[64];       /* saved file names, e.g. "spheres_global" */
    long long frame;
    int paused;
    int no_reset_save;  /* 1: the panel has no Reset and Save buttons (a library viewer: a program's
                           field has nothing to reset, and ks_viewer_save saves) */
    int nfields;
    ks_vfield fields[KS_VIEW_FIELDS];
    int nstages;
    ks_vstage stages[KS_VIEW_STAGES];
    ks_vtable table;           /* ncols == 0: none */
    int ncontrols;
    ks_vcontrol controls[KS_VIEW_CONTROLS];
    struct {
        int on;
        ks_colormap cmap;
        double lo, hi;
        char label[KS_VIEW_NAME];
        /* The shown values in hist_n bins over [hist_lo, hist_hi] (the colour
         * range they were counted for; the end bins hold what lies outside);
         * hist_n == 0: none. */
        int hist_n;
        double hist_lo, hist_hi;
        double hist[KS_VIEW_HIST];
        char hist_what[KS_VIEW_NAME]; /* "whole field, GPU" */
    } colorbar;
    struct {
        int n;
        float x[KS_VIEW_PLOT], y[KS_VIEW_PLOT];
        char title[KS_VIEW_NAME * 2];
    } plot;
    ks_vroof roof;
    /* A zoomable scene's view of its cell grid (render/viewport.h, filled by
     * the live loop); on == 0: none. */
    struct {
        int on;
        double zoom;             /* 1: the whole grid fits the picture area */
        double px_per_cell;      /* picture pixels per cell (< 1: a pixel shows several) */
        int grid_w, grid_h;      /* cells */
        int x0, x1, y0, y1;      /* cells shown: [x0, x1) x [y0, y1) */
        int pic_w, pic_h;        /* the picture, pixels */
        char rule[KS_VIEW_NAME]; /* what a pixel over several cells shows */
    } viewport;
    int nlabels;
    ks_vlabel labels[KS_VIEW_LABELS]; /* captions over the picture (ks_view_label) */
    char hover[KS_VIEW_TEXT];   /* value under the cursor, "" none */
    char message[KS_VIEW_TEXT]; /* banner (errors, "saved ..."), "" none */
    ks_vmessage_kind message_kind; /* how the banner is styled */
    const char *help_global;    /* key help, '\n'-separated (static strings) */
    const char *help_scene;
    /* Added later, at the end. */
    ks_vhardware hw;            /* the Hardware panel (on == 0: none) */
    ks_vtimeline timeline;      /* the strip under the picture (on == 0: none) */
} ks_view;

/* Adds a numeric / text field; silently ignored when the table is full. */
void ks_view_num(ks_view *v, ks_vgroup g, const char *label, double value, const char *unit,
                 ks_vfmt fmt);
void ks_view_text(ks_view *v, ks_vgroup g, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Adds a caption over the picture at (x, y), fractions of the picture from its
 * top left (clamped to 0..1); ignored when full. */
void ks_view_label(ks_view *v, float x, float y, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The field with that label, or NULL. */
const ks_vfield *ks_view_find(const ks_view *v, const char *label);
/* Frame fields the panels look up by label (the live loop writes them, the stage panel reads them).
 * The whole name is the label, which wraps; a unit holds 15 characters. */
#define KS_VIEW_SOLVER_SHARE "solver share of frame interval"
#define KS_VIEW_FRAME_INTERVAL "frame interval"
/* Adds a control; returns it (NULL when full) for its choices. */
ks_vcontrol *ks_view_control(ks_view *v, const char *label, int key_prev, int key_next);
/* Adds an on / off control that key flips: now is its state (the value and
 * the first choice), other the one key gives. NULL when full. */
ks_vcontrol *ks_view_toggle(ks_view *v, const char *label, int key, const char *now, const char *other);
/* Writes a field's value (without unit) as the UI shows it. */
void ks_view_format(const ks_vfield *f, char *buf, size_t cap);
void ks_view_format_value(double value, ks_vfmt fmt, char *buf, size_t cap);

/* A roofline memory: the last point of each variant, kept by a scene so that
 * every variant seen stays on the plot when the user switches. */
typedef struct ks_roof_log {
    int n;
    ks_vroof_point pts[KS_VIEW_ROOF];
} ks_roof_log;
/* Records (replaces) the point of variant name; ignored when ms <= 0 or full. */
void ks_roof_log_put(ks_roof_log *log, const char *name, double flops, double bytes, double ms);
/* Fills v->roof from the log and the ceilings; current is the variant in use. */
void ks_view_roof(ks_view *v, const ks_roof_log *log, const char *current, const char *what,
                  double peak_gbs, double peak_gflops);

/* JSON of the whole view (UTF-8, strings escaped, NaN/inf as null) into buf;
 * *len gets the length. KS_ERR_INVALID when it does not fit in cap. */
ks_status ks_view_to_json(const ks_view *v, char *buf, size_t cap, size_t *len);
/* Its "hardware" and "timeline" members (view_hw.c): appended at buf + *len
 * as `"hardware":{...}|null,"timeline":{...}|null`; -1 when they do not fit
 * (buf then ends where it was), else 0. */
int ks_view_hw_json(const ks_view *v, char *buf, size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
