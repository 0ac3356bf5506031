/* bench serve --replot CSV: an earlier run's bench_serve.csv read back and
 * drawn again (table, .txt, .csv, .png), nothing run (bench_serve.h). */
#include "app/bench/bench_serve_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_output.h"
#include "app/run_outputs.h"
#include "base/ks_util.h"

/* --replot's rows, for the chart writer. */
typedef struct replot_rows {
    const ks_serve_row *rows;
    int n;
    const char *dir;
} replot_rows;

static ks_status replot_chart(const void *ctx, const char *dir)
{
    const replot_rows *r = ctx;
    (void)dir;
    return ks_serve_chart_write(r->rows, r->n, r->dir);
}

ks_status ks_bench_serve_read_csv(const char *csv_path, ks_serve_row *rows, int max, int *n)
{
    *n = 0;
    FILE *f = NULL;
    const int err = ks_fopen_regular(csv_path, &f);
    if (err) return ks_fail(KS_ERR_IO, "--replot: cannot read '%s': %s", KS_QUOTED(csv_path), strerror(err));
    enum { CAP = 1 << 20 };
    char *text = malloc(CAP + 1);
    const size_t got = text ? fread(text, 1, CAP + 1, f) : 0;
    const int read_err = ferror(f);
    fclose(f);
    if (!text) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    ks_status st = KS_OK;
    if (read_err) st = ks_fail(KS_ERR_IO, "--replot: cannot read '%s'", KS_QUOTED(csv_path));
    else if (got > CAP) st = ks_fail(KS_ERR_INVALID, "--replot: '%s' is larger than 1 MiB", KS_QUOTED(csv_path));
    if (st == KS_OK) {
        text[got] = '\0';
        st = ks_bench_serve_parse_csv(text, rows, max, n);
        if (st != KS_OK) ks_error_prefix("--replot '%s'", KS_QUOTED(csv_path));
    }
    free(text);
    return st;
}

ks_status ks_bench_serve_replot(const char *csv_path, const char *out_dir)
{
    ks_serve_row *rows = calloc(KS_SERVE_MAX_ROWS, sizeof *rows);
    if (!rows) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    int n = 0;
    ks_status st = ks_bench_serve_read_csv(csv_path, rows, KS_SERVE_MAX_ROWS, &n);
    if (st == KS_OK) {
        printf("kernelscope bench serve: %d rows of %s (%s), drawn again; nothing run\n", n, csv_path, rows[0].device);
        const replot_rows ctx = {rows, n, out_dir};
        const ks_bench_output_desc out = {
            .dir = out_dir, .rows = rows, .n = n, .table = ks_serve_table_text,
            .files = {{"bench_serve.txt", ks_serve_table_text}, {"bench_serve.csv", ks_serve_csv_text}},
            .charts = replot_chart, .ctx = &ctx};
        st = ks_bench_output_write(&out, KS_OK);
    }
    free(rows);
    return st;
}

ks_status ks_bench_serve_replot_check(const char *csv_path)
{
    ks_serve_row *rows = calloc(KS_SERVE_MAX_ROWS, sizeof *rows);
    if (!rows) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    int n = 0;
    const ks_status st = ks_bench_serve_read_csv(csv_path, rows, KS_SERVE_MAX_ROWS, &n);
    free(rows);
    return st;
}
