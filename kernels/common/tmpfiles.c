#include "tmpfiles.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static char ks_tmp_path[KS_TMPFILES_MAX][KS_TMPFILES_PATH];
/* 0: free; 1: holds a complete name the handler may unlink */
static volatile sig_atomic_t ks_tmp_used[KS_TMPFILES_MAX];

int ks_tmpfiles_add(const char *path)
{
    const size_t n = strlen(path);
    if (n >= KS_TMPFILES_PATH) return -1;
    for (int i = 0; i < KS_TMPFILES_MAX; ++i) {
        if (ks_tmp_used[i]) continue;
        memcpy(ks_tmp_path[i], path, n + 1);
        ks_tmp_used[i] = 1; /* only now may the handler read the name */
        return i;
    }
    return -1;
}

void ks_tmpfiles_remove(int slot)
{
    if (slot >= 0 && slot < KS_TMPFILES_MAX) ks_tmp_used[slot] = 0;
}

void ks_tmpfiles_unlink_all(void)
{
    for (int i = 0; i < KS_TMPFILES_MAX; ++i)
        if (ks_tmp_used[i]) unlink(ks_tmp_path[i]);
}
