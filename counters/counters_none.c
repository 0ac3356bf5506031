/* The counters and the timeline of a build without CUPTI (no CUDA, or a CUDA
 * Toolkit without CUPTI, or -DKS_CUPTI=OFF): every entry point refuses with
 * one line that says how to get them, and the rest of the app runs. */
#include <string.h>

#include "counters.h"
#include "timeline.h"

static ks_counters_why build_why(void) { return KS_HAVE_CUDA ? KS_CTRS_NO_CUPTI_BUILD : KS_CTRS_NO_CUDA_BUILD; }

int ks_counters_built(void) { return 0; }

ks_status ks_counters_library(char *path, size_t cap)
{
    if (path != NULL && cap > 0) path[0] = '\0';
    return ks_counters_fail(build_why(), NULL);
}

ks_status ks_counters_create(const ks_counters_desc *desc, ks_counters **out)
{
    (void)desc;
    if (out != NULL) *out = NULL;
    return ks_counters_fail(build_why(), NULL);
}

void ks_counters_destroy(ks_counters *c) { (void)c; }

void ks_counters_describe(const ks_counters *c, ks_counter_set *out)
{
    (void)c;
    memset(out, 0, sizeof *out);
}

ks_status ks_counters_measure(ks_counters *c, ks_status (*launch)(void *user, void *stream), void *user,
                              void *stream, ks_counter_set *out)
{
    (void)c;
    (void)launch;
    (void)user;
    (void)stream;
    if (out != NULL) memset(out, 0, sizeof *out);
    return ks_counters_fail(build_why(), NULL);
}

ks_status ks_counters_list_metrics(int device, int pm_sampling, const char *contains,
                                   void (*emit)(void *user, const char *name, const char *description), void *user)
{
    (void)device;
    (void)pm_sampling;
    (void)contains;
    (void)emit;
    (void)user;
    return ks_counters_fail(build_why(), NULL);
}

ks_status ks_timeline_create(const ks_timeline_desc *desc, ks_timeline **out)
{
    (void)desc;
    if (out != NULL) *out = NULL;
    return ks_counters_fail(build_why(), NULL);
}

void ks_timeline_destroy(ks_timeline *tl) { (void)tl; }

ks_status ks_timeline_start(ks_timeline *tl)
{
    (void)tl;
    return ks_counters_fail(build_why(), NULL);
}

ks_status ks_timeline_stop(ks_timeline *tl)
{
    (void)tl;
    return ks_counters_fail(build_why(), NULL);
}

ks_status ks_timeline_flush(ks_timeline *tl)
{
    (void)tl;
    return ks_counters_fail(build_why(), NULL);
}

ks_status ks_timeline_read(ks_timeline *tl, ks_tl_sample *samples, int max_samples, int *nsamples,
                           ks_tl_span *spans, int max_spans, int *nspans)
{
    (void)tl;
    (void)samples;
    (void)max_samples;
    (void)spans;
    (void)max_spans;
    if (nsamples != NULL) *nsamples = 0;
    if (nspans != NULL) *nspans = 0;
    return ks_counters_fail(build_why(), NULL);
}

void ks_timeline_get_info(ks_timeline *tl, ks_timeline_info *out)
{
    (void)tl;
    memset(out, 0, sizeof *out);
}
