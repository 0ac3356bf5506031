/* A scene's --kernel-file flag (kernel_files.h). */
#include "app/kernel/kernel_files.h"

#include <string.h>

#include "app/options_parse.h"
#include "base/ks_util.h"

ks_status ks_kernel_files_add(ks_kernel_files *f, const char *flag, const char *path)
{
    if (!path[0]) return ks_fail(KS_ERR_INVALID, "%s needs a FILE", flag);
    if (f->count == KS_KERNEL_FILES_MAX) return ks_fail(KS_ERR_INVALID, "%s: at most %d files", flag, KS_KERNEL_FILES_MAX);
    f->paths[f->count++] = path;
    return KS_OK;
}

ks_status ks_kernel_files_check(const ks_kernel_files *f, int name_max, int (*is_ours)(const char *name))
{
    for (int k = 0; k < f->count; ++k) {
        const char *base = ks_path_base_name(f->paths[k]);
        if (!base[0]) return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s' names a folder", quoted(f->paths[k]));
        if (name_max > 0 && strlen(base) >= (size_t)name_max)
            return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s': a file name of at most %d bytes", quoted(base),
                           name_max - 1);
        if (is_ours && is_ours(base))
            return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s' is the name of a built-in kernel", quoted(base));
        for (int g = 0; g < k; ++g)
            if (strcmp(ks_path_base_name(f->paths[g]), base) == 0)
                return ks_fail(KS_ERR_INVALID, "--kernel-file: two files named '%s' (a variant is named after its file)",
                               quoted(base));
    }
    return KS_OK;
}

int ks_kernel_files_named(const ks_kernel_files *f, const char *name)
{
    for (int k = 0; k < f->count; ++k)
        if (strcmp(ks_path_base_name(f->paths[k]), name) == 0) return 1;
    return 0;
}

const char *ks_kernel_files_at(const ks_kernel_files *f, int i) { return i >= 0 && i < f->count ? f->paths[i] : NULL; }
