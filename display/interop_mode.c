/* --interop names (both builds: the option parses without CUDA too). */
#include <string.h>

#include "interop.h"

static const char *const ks_interop_names[KS_INTEROP_NUM] = {"auto", "pbo", "copy"};

int ks_interop_mode_parse(const char *name, ks_interop_mode *out)
{
    for (int m = 0; m < KS_INTEROP_NUM; ++m)
        if (name && strcmp(name, ks_interop_names[m]) == 0) {
            *out = (ks_interop_mode)m;
            return 0;
        }
    return -1;
}

const char *ks_interop_mode_name(ks_interop_mode m)
{
    return (m >= 0 && m < KS_INTEROP_NUM) ? ks_interop_names[m] : "?";
}
