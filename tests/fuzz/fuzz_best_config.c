/* libFuzzer target: the best-config store reader (ks_best_load). Any file
 * gives a store whose entries are in range (block product <= 1024, grid axes
 * 1..65536) and whose save/load round trip keeps every entry, or an empty
 * store with a notice; a notice never holds a raw control byte.
 * Built and run by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/best_config.h"
#include "kernels/laplace/laplace.h"

/* The stale-entry rule with the Laplace kernels (the scene registry is not linked here). */
static int known(const char *scene, const char *variant)
{
    const int dims = strcmp(scene, "laplace3d") == 0 ? 3 : strcmp(scene, "laplace2d") == 0 ? 2 : 0;
    return dims && ks_lvariant_find(dims, variant) >= 0;
}

static char in_path[256], out_path[256];

static void make_paths(void)
{
    if (in_path[0]) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(in_path, sizeof in_path, "%s/ks-fuzz-best-%ld.tsv", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    snprintf(out_path, sizeof out_path, "%s.out", in_path);
}

static void check_notice(const char *notice)
{
    for (const unsigned char *p = (const unsigned char *)notice; *p; ++p)
        if (*p < 0x20 || *p == 0x7f) abort();
}

static void check_store(const ks_best_store *st)
{
    if (st->count < 0 || st->count > KS_BEST_MAX) abort();
    for (int k = 0; k < st->count; ++k) {
        const ks_best_entry *e = &st->entries[k];
        long threads = 1;
        for (int d = 0; d < 3; ++d) {
            if (e->grid[d] < 1 || e->grid[d] > 65536 || e->block[d] < 1 || e->block[d] > 1024) abort();
            threads *= e->block[d];
        }
        if (threads > 1024 || !(e->ms_per_iter > 0.0) || !(e->t_eff_gbs >= 0.0)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    make_paths();
    FILE *f = fopen(in_path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);

    static ks_best_store a, b;
    char notice[1200];
    a.known = b.known = known;
    ks_best_load(in_path, &a, notice, sizeof notice);
    check_notice(notice);
    check_store(&a);
    if (a.count > 0) { /* what loads, saves and loads back the same */
        if (ks_best_save(out_path, &a) != KS_OK) abort();
        ks_best_load(out_path, &b, notice, sizeof notice);
        if (b.count != a.count) abort();
        unlink(out_path);
    }
    unlink(in_path);
    return 0;
}
