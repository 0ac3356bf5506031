/* The benches' roofline chart: DIR/roofline_<scene>.png places each variant
 * (its best configuration per size) by model FLOPs per model DRAM byte and
 * achieved GFLOP/s, under the ceilings measured in the same run; with bench
 * --counters by the DRAM bytes measured, the model's place a hollow marker. */
#ifndef KS_BENCH_ROOFLINE_H
#define KS_BENCH_ROOFLINE_H

#include <stddef.h>

#include "base/ks_error.h"

enum { KS_ROOF_MAX_POINTS = 256 };

typedef struct ks_roof_pt {
    char variant[32];
    double flops; /* model FLOPs of one launch (or iteration) */
    double bytes; /* model DRAM bytes of the same */
    double ms;    /* its measured time */
    double measured_bytes; /* DRAM bytes the counters measured (bench --counters); 0: none */
} ks_roof_pt;

/* Collects the points of one bench run. */
typedef struct ks_roof_chart {
    double peak_gbs;    /* copy bandwidth measured in this run */
    double peak_gflops; /* FP32 FMA peak measured in this run; <= 0: none (CPU backend) */
    int n;
    ks_roof_pt pts[KS_ROOF_MAX_POINTS];
} ks_roof_chart;

/* The CPU backend's bandwidth ceiling for a bench: T_peak of a copy of
 * bytes (base/host_peak.h: every thread, repeated, the best), read +
 * write; 0 when out of memory. */
double ks_roof_host_copy_gbs(size_t bytes);
/* Adds a point (ignored when full, when ms or bytes is not > 0 or flops < 0).
 * A point with no flops (histogram) is drawn at the chart's left edge at the
 * height of its byte rate there, i.e. on the bandwidth line it reaches. */
void ks_roof_chart_add(ks_roof_chart *c, const char *variant, double flops, double bytes, double ms);
/* The same point placed by the DRAM bytes its launch moved (the counters'
 * read + written), with the model's place as a hollow marker; measured_bytes
 * not > 0 (not measured): as ks_roof_chart_add. */
void ks_roof_chart_add_measured(ks_roof_chart *c, const char *variant, double flops, double model_bytes,
                                double measured_bytes, double ms);
/* Draws and writes out_dir/roofline_<scene>.png (to a temporary name, then
 * renamed) and says so; nothing when no point was added. path (NULL: not
 * wanted) gets the file written ("" when none). */
ks_status ks_roof_chart_write(const ks_roof_chart *c, const char *out_dir, const char *scene,
                              const char *device, char *path, size_t path_cap);

#endif
