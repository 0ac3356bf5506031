/* The benches' last step (bench_output.h). */
#include "app/bench/bench_output.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/run_outputs.h"

enum { KS_BENCH_CHART_W = 1100, KS_BENCH_CHART_H = 650 };

char *ks_bench_text(ks_bench_text_fn fn, const void *rows, int n)
{
    const size_t need = fn(rows, n, NULL, 0) + 1;
    char *buf = malloc(need);
    if (buf) fn(rows, n, buf, need);
    return buf;
}

ks_status ks_bench_chart_write(const ks_chart_desc *d, const char *dir, const char *name, char *path,
                               size_t path_cap)
{
    if (path && path_cap) path[0] = '\0';
    ks_chart_desc sized = *d;
    if (!sized.width) sized.width = KS_BENCH_CHART_W;
    if (!sized.height) sized.height = KS_BENCH_CHART_H;
    char file[1024];
    KS_TRY(ks_out_path(file, sizeof file, dir ? dir : ".", name));
    KS_TRY(ks_chart_write_png(&sized, file));
    ks_note_wrote(file);
    if (path && path_cap) snprintf(path, path_cap, "%s", file);
    return KS_OK;
}

static ks_status write_all(const ks_bench_output_desc *d)
{
    const char *dir = d->dir ? d->dir : ".";
    if (d->table) {
        char *table = ks_bench_text(d->table, d->rows, d->n);
        if (!table) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
        fputs(table, stdout);
        fflush(stdout); /* on screen before any file is written */
        free(table);
    }
    for (int i = 0; i < KS_BENCH_OUTPUT_FILES && d->files[i].name; ++i)
        KS_TRY(ks_write_text_out(dir, d->files[i].name, ks_bench_text(d->files[i].text, d->rows, d->n)));
    return d->charts ? d->charts(d->ctx, dir) : KS_OK;
}

ks_status ks_bench_output_write(const ks_bench_output_desc *d, ks_status measured)
{
    char first_error[512] = "";
    if (measured != KS_OK) snprintf(first_error, sizeof first_error, "%s", ks_error_message());
    const ks_status st = write_all(d);
    return measured != KS_OK ? ks_fail(measured, "%s", first_error) : st;
}

ks_timing_opts ks_bench_timing_opts(const ks_options *opt)
{
    ks_timing_opts o = {0};
    o.cache = opt->cache;
    o.reps = ks_options_given(opt, "--reps") ? opt->reps : 0;
    return o;
}
