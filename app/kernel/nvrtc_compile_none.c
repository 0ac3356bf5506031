/* The NVRTC module of a build without NVRTC (no CUDA, or a CUDA Toolkit
 * installed without its nvrtc package): compiling refuses with one line that
 * says how to get it. */
#include <stdlib.h>
#include <string.h>

#include "nvrtc_compile.h"

#if KS_HAVE_CUDA
#define KS_NVRTC_WHY "NVRTC is not in this CUDA Toolkit"
#define KS_NVRTC_HOW "install the toolkit's NVRTC package (cuda-nvrtc-dev-X-Y for nvcc's version X.Y) and build again"
#else
#define KS_NVRTC_WHY "NVRTC is not in this build (kernelscope was built without CUDA)"
#define KS_NVRTC_HOW "install the CUDA Toolkit with its NVRTC package and build with -DKS_CUDA=ON"
#endif

int ks_nvrtc_built(void) { return 0; }

const char *ks_nvrtc_version_text(void) { return KS_NVRTC_WHY; }

ks_status ks_nvrtc_compile(const ks_nvrtc_desc *desc, ks_nvrtc_result *out)
{
    (void)desc;
    memset(out, 0, sizeof *out);
    return ks_fail(KS_ERR_UNSUPPORTED, "%s: %s", KS_NVRTC_WHY, KS_NVRTC_HOW);
}

void ks_nvrtc_result_free(ks_nvrtc_result *r)
{
    free(r->code);
    free(r->log);
    free(r->lines);
    memset(r, 0, sizeof *r);
}
