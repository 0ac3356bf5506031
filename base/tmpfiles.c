#include "tmpfiles.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static char ks_tmp_path[KS_TMPFILES_MAX][KS_TMPFILES_PATH];
/* 0: free; 2: taken, its name being copied; 1: holds a complete name the handler may unlink.
 * Atomic: files are written from more than one thread (frames, the editor's save, the video). */
enum { KS_TMP_FREE = 0, KS_TMP_READY = 1, KS_TMP_FILLING = 2 };
static atomic_int ks_tmp_state[KS_TMPFILES_MAX];
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler reads the slots: they must be lock-free");

int ks_tmpfiles_add(const char *path)
{
    const size_t n = strlen(path);
    if (n >= KS_TMPFILES_PATH) return -1;
    for (int i = 0; i < KS_TMPFILES_MAX; ++i) {
        int expected = KS_TMP_FREE;
        if (!atomic_compare_exchange_strong(&ks_tmp_state[i], &expected, KS_TMP_FILLING)) continue;
        memcpy(ks_tmp_path[i], path, n + 1);
        atomic_store(&ks_tmp_state[i], KS_TMP_READY); /* only now may the handler read the name */
        return i;
    }
    return -1;
}

void ks_tmpfiles_remove(int slot)
{
    if (slot >= 0 && slot < KS_TMPFILES_MAX) atomic_store(&ks_tmp_state[slot], KS_TMP_FREE);
}

void ks_tmpfiles_unlink_all(void)
{
    for (int i = 0; i < KS_TMPFILES_MAX; ++i)
        if (atomic_load(&ks_tmp_state[i]) == KS_TMP_READY) unlink(ks_tmp_path[i]);
}
