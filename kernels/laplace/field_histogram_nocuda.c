/* The float field histogram's GPU entry point in a build without CUDA. */
#include "field_histogram.h"
#include "base/ks_nocuda.h"

ks_status ks_field_hist_run(const float *d_v, size_t n, float lo, float hi, unsigned bins, unsigned *d_hist,
                            void *stream)
{
    (void)d_v, (void)n, (void)lo, (void)hi, (void)bins, (void)d_hist, (void)stream;
    return KS_NO_CUDA("float histogram");
}
