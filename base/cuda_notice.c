/* The words of the "no CUDA device" notice (pure C: no CUDA calls here). */
#include <stdio.h>

#include "cuda_device.h"

int ks_cuda_min_driver(int runtime_version)
{
    /* NVIDIA's CUDA Toolkit release notes, "CUDA Driver" table: the minimum
     * Linux driver of each major version under minor-version compatibility. */
    switch (runtime_version / 1000) {
    case 11: return 450; /* >= 450.80.02 */
    case 12: return 525; /* >= 525.60.13 */
    case 13: return 580; /* >= 580.65.06 */
    default: return 0;
    }
}

const char *ks_cuda_probe_reason(const ks_cuda_probe_facts *f, char *buf, size_t len)
{
    if (!len) return buf;
    if (!f->built_with_cuda) {
        snprintf(buf, len, "built without CUDA");
    } else if (!f->driver_loadable || f->driver_version <= 0) {
        snprintf(buf, len, "no NVIDIA driver found");
    } else if (f->error == KS_PROBE_ERR_INSUFFICIENT_DRIVER ||
               (f->error != KS_PROBE_ERR_NONE && f->driver_version < f->runtime_version)) {
        const int need = f->runtime_version, have = f->driver_version;
        const int min = ks_cuda_min_driver(need);
        char drv[64];
        if (min) snprintf(drv, sizeof drv, "driver >= %d", min);
        else snprintf(drv, sizeof drv, "see NVIDIA's CUDA Toolkit release notes");
        snprintf(buf, len, "the NVIDIA driver supports CUDA %d.%d but this build needs CUDA %d.%d (%s)",
                 have / 1000, have % 1000 / 10, need / 1000, need % 1000 / 10, drv);
    } else if (f->error == KS_PROBE_ERR_NO_DEVICE || (f->error == KS_PROBE_ERR_NONE && f->device_count <= 0)) {
        snprintf(buf, len, "no CUDA device found");
    } else if (f->error == KS_PROBE_ERR_NONE) {
        snprintf(buf, len, "%d CUDA device%s found", f->device_count, f->device_count == 1 ? "" : "s");
    } else {
        snprintf(buf, len, "no usable CUDA device (%s)", f->error_text ? f->error_text : "unknown CUDA error");
    }
    return buf;
}
