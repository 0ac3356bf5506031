/* bench --counters and --counters-ncu (bench_counters.h). */
#include "app/bench/bench_counters.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/timeline.h"
#include "base/cuda_device.h"
#include "base/ks_util.h"
#include "app/run_outputs.h"

typedef struct bc_row {
    int measured;
    char label[64];
    char values[256]; /* ",v1,...,v9" */
    double dram;      /* bytes read + written, NaN none */
    ks_counter_derived d;
    int nkernels;
} bc_row;

struct ks_bench_counters {
    int ncu;              /* --counters-ncu */
    ks_counters *ctr;     /* made at the first row */
    int failed;           /* no counters: why says so */
    char why[512];
    bc_row *rows;
    int nrows, cap;
    char *detail;         /* counters_<scene>.csv's lines */
    size_t detail_len, detail_cap;
    int launches;         /* kernels written to detail */
    int *map;             /* the table's row i is measured row map[i] (ks_bench_counters_map); NULL: itself */
    int nmap;
};

/* The measured row of the table's row `row`, or -1 when it has none. */
static int source(const ks_bench_counters *bc, int row)
{
    if (bc->map) row = row >= 0 && row < bc->nmap ? bc->map[row] : -1;
    return row >= 0 && row < bc->nrows && bc->rows[row].measured ? row : -1;
}

static char ks_blank_values[64];

const char *ks_bench_counters_header(void)
{
    static char header[256];
    if (!header[0]) snprintf(header, sizeof header, ",%s", ks_counters_csv_header());
    return header;
}

static const char *blank_values(void)
{
    if (!ks_blank_values[0]) {
        /* one comma a column: as many as the header has */
        size_t n = 0;
        for (const char *p = ks_bench_counters_header(); *p && n + 1 < sizeof ks_blank_values; ++p)
            if (*p == ',') ks_blank_values[n++] = ',';
        ks_blank_values[n] = '\0';
    }
    return ks_blank_values;
}

ks_status ks_bench_counters_begin(const ks_options *opt, int use_cuda, ks_bench_counters **out)
{
    *out = NULL;
    if (!opt->counters && !opt->counters_ncu) return KS_OK;
    ks_bench_counters *bc = calloc(1, sizeof *bc);
    if (!bc) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    bc->ncu = opt->counters_ncu;
    if (!use_cuda) { /* no GPU kernels: one line, empty columns */
        (void)ks_counters_fail(KS_CTRS_CPU_BACKEND, NULL);
        snprintf(bc->why, sizeof bc->why, "%s", ks_error_message());
        ks_error_clear();
        bc->failed = 1;
        printf("kernelscope: %s; the counter columns stay empty\n", bc->why);
    } else if (bc->ncu) {
        printf("kernelscope: --counters-ncu: each row's kernel launched once more after its timing, between "
               "cudaProfilerStart and Stop (ncu --profile-from-start off profiles those launches)\n");
    }
    *out = bc;
    return KS_OK;
}

void ks_bench_counters_destroy(ks_bench_counters *bc)
{
    if (!bc) return;
    ks_counters_destroy(bc->ctr);
    free(bc->map);
    free(bc->rows);
    free(bc->detail);
    free(bc);
}

static bc_row *row_at(ks_bench_counters *bc, int row)
{
    if (row < 0) return NULL;
    if (row >= bc->cap) {
        int cap = bc->cap ? bc->cap : 64;
        while (cap <= row) cap *= 2;
        bc_row *r = realloc(bc->rows, (size_t)cap * sizeof *r);
        if (!r) return NULL;
        memset(r + bc->cap, 0, (size_t)(cap - bc->cap) * sizeof *r);
        bc->rows = r;
        bc->cap = cap;
    }
    if (row >= bc->nrows) bc->nrows = row + 1;
    return &bc->rows[row];
}

static void detail_put(ks_bench_counters *bc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail_put(ks_bench_counters *bc, const char *fmt, ...)
{
    for (int tries = 0; tries < 2; ++tries) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(bc->detail ? bc->detail + bc->detail_len : NULL,
                                bc->detail ? bc->detail_cap - bc->detail_len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (bc->detail && bc->detail_len + (size_t)n < bc->detail_cap) {
            bc->detail_len += (size_t)n;
            return;
        }
        size_t cap = bc->detail_cap ? bc->detail_cap : 65536;
        while (cap < bc->detail_len + (size_t)n + 1) cap *= 2;
        char *d = realloc(bc->detail, cap);
        if (!d) return; /* the file is left short; the run goes on */
        bc->detail = d;
        bc->detail_cap = cap;
    }
}

/* A CSV field: quoted (quotes doubled) when it holds a comma or a quote ("k<1, 2>"). */
static void csv_field(const char *text, char *out, size_t cap)
{
    if (strpbrk(text, ",\"") == NULL) {
        snprintf(out, cap, "%s", text);
        return;
    }
    size_t n = 0;
    if (cap < 3) return;
    out[n++] = '"';
    for (const char *p = text; *p && n + 3 < cap; ++p) {
        if (*p == '"') out[n++] = '"';
        out[n++] = *p;
    }
    out[n++] = '"';
    out[n] = '\0';
}

static void detail_set(ks_bench_counters *bc, const ks_counter_set *s, const char *label)
{
    char lab[2 * sizeof ((bc_row *)0)->label + 3];
    csv_field(label, lab, sizeof lab);
    for (int k = 0; k < s->nkernels && k < KS_COUNTERS_MAX_KERNELS; ++k) {
        char name[KS_COUNTER_NAME], field[2 * KS_COUNTER_NAME + 3];
        ks_tl_short_name(s->kernels[k].name, name, sizeof name);
        csv_field(name, field, sizeof field);
        for (int id = 0; id < KS_CTR_NUM; ++id) {
            if (!s->kernels[k].present[id] || !s->metric[id][0]) continue;
            detail_put(bc, "%d,%s,,,%s,%s,%.17g,%s\n", bc->launches, field, ks_counters_info((ks_counter_id)id)->key,
                       s->metric[id], s->kernels[k].values[id], lab);
        }
        ++bc->launches;
    }
}

/* The first failure of the counters: its line, once; the rest of the rows stay empty. */
static void no_counters(ks_bench_counters *bc)
{
    snprintf(bc->why, sizeof bc->why, "%s", ks_error_message());
    ks_error_clear();
    bc->failed = 1;
    printf("kernelscope: %s; the counter columns stay empty\n", bc->why);
    fflush(stdout);
}

/* One launch first, unmeasured: a cold-cache timing leaves the L2 full of its flush's dirty lines,
 * whose write-back would be counted as the measured kernel's DRAM writes. */
static ks_status warm_launch(ks_bench_launch_fn launch, void *user, void *stream)
{
    KS_TRY(launch(user, stream));
    return ks_cuda_sync();
}

ks_status ks_bench_counters_row(ks_bench_counters *bc, int row, const char *label, ks_bench_launch_fn launch,
                                void *user, void *stream, double model_bytes, const ks_counter_launch *cl)
{
    if (!bc) return KS_OK;
    bc_row *r = row_at(bc, row);
    if (!r) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    snprintf(r->label, sizeof r->label, "%s", label ? label : "");
    r->dram = NAN;
    if (bc->ncu) { /* the launch alone, where a profiler collects it (after the same unmeasured one) */
        KS_TRY(warm_launch(launch, user, stream));
        KS_TRY(ks_cuda_profiler(1));
        const ks_status st = launch(user, stream);
        const ks_status stop = ks_cuda_profiler(0);
        KS_TRY(st);
        return stop;
    }
    if (bc->failed) return KS_OK;
    if (!bc->ctr) {
        const ks_counters_desc d = {.device = -1};
        if (ks_counters_create(&d, &bc->ctr) != KS_OK) {
            bc->ctr = NULL;
            no_counters(bc);
            return KS_OK;
        }
    }
    KS_TRY(warm_launch(launch, user, stream));
    ks_counter_set s;
    const ks_status st = ks_counters_measure(bc->ctr, launch, user, stream, &s);
    if (st != KS_OK) {
        if (ks_counters_last_why() == KS_CTRS_OK) return st; /* the launch's own failure */
        no_counters(bc);
        return KS_OK;
    }
    if (cl) ks_counters_set_launch(&s, -1, cl);
    ks_counters_csv_values(&s, -1, model_bytes, r->values + 1, sizeof r->values - 1);
    r->values[0] = ',';
    ks_kernel_counters all;
    if (ks_counters_combine(&s, -1, &all) == KS_OK) {
        ks_counters_derive(&all, model_bytes, &r->d);
        r->dram = r->d.dram_bytes;
    }
    r->nkernels = s.nkernels;
    r->measured = 1;
    detail_set(bc, &s, r->label);
    return KS_OK;
}

ks_status ks_bench_counters_map(ks_bench_counters *bc, const int *map, int n)
{
    if (!bc) return KS_OK;
    int *m = n > 0 ? malloc((size_t)n * sizeof *m) : NULL;
    if (n > 0 && !m) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    if (n > 0) memcpy(m, map, (size_t)n * sizeof *m);
    free(bc->map);
    bc->map = m;
    bc->nmap = n > 0 ? n : 0;
    return KS_OK;
}

double ks_bench_counters_dram_bytes(const ks_bench_counters *bc, int row)
{
    const int src = bc ? source(bc, row) : -1;
    return src >= 0 ? bc->rows[src].dram : NAN;
}

const char *ks_bench_counters_values(const ks_bench_counters *bc, int row)
{
    const int src = bc ? source(bc, row) : -1;
    return src >= 0 ? bc->rows[src].values : blank_values();
}

char *ks_bench_counters_csv(const ks_bench_counters *bc, const char *csv)
{
    const size_t len = strlen(csv);
    if (!bc) {
        char *copy = malloc(len + 1);
        if (copy) memcpy(copy, csv, len + 1);
        return copy;
    }
    /* every line longer by at most a row's values */
    size_t lines = 1;
    for (const char *p = csv; *p; ++p) lines += *p == '\n';
    const size_t cap = len + lines * (sizeof bc->rows[0].values + 8) + 1;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t used = 0;
    int line = 0;
    for (const char *p = csv; *p;) {
        const char *end = strchr(p, '\n');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *add = line == 0 ? ks_bench_counters_header() : ks_bench_counters_values(bc, line - 1);
        used += (size_t)snprintf(out + used, cap - used, "%.*s%s%s", (int)n, p, add, end ? "\n" : "");
        p += n + (end != NULL);
        ++line;
    }
    return out;
}

static void fmt_num(double v, const char *fmt, double scale, char *buf, size_t cap)
{
    if (isfinite(v)) snprintf(buf, cap, fmt, v * scale);
    else snprintf(buf, cap, "-");
}

size_t ks_bench_counters_table(const ks_bench_counters *bc, char *buf, size_t cap)
{
    size_t used = 0;
    if (buf && cap) buf[0] = '\0';
    if (!bc || bc->ncu) return 0;
    const int shown = bc->map ? bc->nmap : bc->nrows; /* the table's rows */
    int measured = 0;
    for (int i = 0; i < shown; ++i) measured += source(bc, i) >= 0;
    if (!measured) {
        const char *why = bc->why[0] ? bc->why : "no row was measured";
        if (strncmp(why, "hardware counters: ", 19) == 0) why += 19;
        ks_text_measure(buf, cap, &used, "\nhardware counters: none: %s\n", why);
        return used;
    }
    ks_text_measure(buf, cap, &used,
                    "\nhardware counters, one launch of each row (kernel replay, after its timing):\n"
                    "%-26s %10s %10s %8s %6s %8s %10s %6s %7s  %s\n",
                    "row", "read MB", "written MB", "vs model", "L2 %", "sect/req", "bank confl", "occ %", "SM MHz",
                    "top stall");
    for (int i = 0; i < shown; ++i) {
        if (source(bc, i) < 0) continue;
        const bc_row *r = &bc->rows[source(bc, i)];
        const ks_counter_derived *d = &r->d;
        char rd[24], wr[24], vm[24], l2[24], spr[24], bk[24], occ[24], clk[24];
        fmt_num(d->dram_read_bytes, "%.2f", 1e-6, rd, sizeof rd);
        fmt_num(d->dram_write_bytes, "%.2f", 1e-6, wr, sizeof wr);
        fmt_num(d->bytes_vs_model, "%.3f", 1.0, vm, sizeof vm);
        fmt_num(d->l2_hit_pct, "%.1f", 1.0, l2, sizeof l2);
        fmt_num(d->sectors_per_request, "%.2f", 1.0, spr, sizeof spr);
        fmt_num(d->bank_conflicts, "%.0f", 1.0, bk, sizeof bk);
        fmt_num(d->occupancy_achieved, "%.1f", 100.0, occ, sizeof occ);
        fmt_num(d->sm_clock_mhz, "%.0f", 1.0, clk, sizeof clk);
        const char *stall = d->nstalls > 0 ? ks_counters_info((ks_counter_id)(KS_CTR_STALL_FIRST + d->stall[0]))->key : "-";
        if (strncmp(stall, "stall_", 6) == 0) stall += 6;
        ks_text_measure(buf, cap, &used, "%-26.26s %10s %10s %8s %6s %8s %10s %6s %7s  %s%s\n", r->label, rd, wr, vm, l2,
                        spr, bk, occ, clk, stall, r->nkernels > 1 ? " (kernels as one)" : "");
    }
    return used;
}

ks_status ks_bench_counters_write(const ks_bench_counters *bc, const char *dir, const char *scene)
{
    if (!bc || bc->ncu || bc->launches == 0 || !bc->detail) return KS_OK;
    static const char head[] = "launch,kernel,grid,block,key,metric,value,row\n";
    char *text = malloc(sizeof head + bc->detail_len);
    if (!text) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    memcpy(text, head, sizeof head - 1);
    memcpy(text + sizeof head - 1, bc->detail, bc->detail_len);
    text[sizeof head - 1 + bc->detail_len] = '\0';
    char name[256];
    snprintf(name, sizeof name, "counters_%s.csv", scene);
    return ks_write_text_out(dir, name, text);
}

size_t ks_bench_counted_table(const void *counted, int n, char *buf, size_t cap)
{
    const ks_bench_counted *c = counted;
    size_t used = c->table ? c->table(c->rows, n, buf, cap) : 0;
    if (!c->bc) return used;
    return used + ks_bench_counters_table(c->bc, buf && used < cap ? buf + used : NULL, used < cap ? cap - used : 0);
}

size_t ks_bench_counted_csv(const void *counted, int n, char *buf, size_t cap)
{
    const ks_bench_counted *c = counted;
    if (!c->bc) return c->csv(c->rows, n, buf, cap);
    char *plain = ks_bench_text(c->csv, c->rows, n);
    char *with = plain ? ks_bench_counters_csv(c->bc, plain) : NULL;
    free(plain);
    if (!with) { /* out of memory: the bench's own CSV */
        return c->csv(c->rows, n, buf, cap);
    }
    const size_t len = strlen(with);
    if (buf && cap) {
        const size_t k = len < cap ? len : cap - 1;
        memcpy(buf, with, k);
        buf[k] = '\0';
    }
    free(with);
    return len;
}
