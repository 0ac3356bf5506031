#include "best_config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernels/laplace/laplace.h"
#include "render/image_io.h"

static const char ks_best_magic[] = "# kernelscope best-config v1";

ks_status ks_best_path(char *buf, size_t len)
{
    const char *explicit_path = getenv("KS_BEST_CONFIG");
    int n;
    if (explicit_path && *explicit_path) {
        n = snprintf(buf, len, "%s", explicit_path);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg) n = snprintf(buf, len, "%s/kernelscope/best-config.tsv", xdg);
        else if (home && *home) n = snprintf(buf, len, "%s/.cache/kernelscope/best-config.tsv", home);
        else return ks_fail(KS_ERR_IO, "no place for the best-config file (set HOME or KS_BEST_CONFIG)");
    }
    if (n < 0 || (size_t)n >= len) return ks_fail(KS_ERR_IO, "best-config path too long");
    return KS_OK;
}

static int parse_triple(const char *text, int out[3])
{
    char tail;
    return sscanf(text, "%dx%dx%d%c", &out[0], &out[1], &out[2], &tail) == 3 && out[0] > 0 &&
           out[1] > 0 && out[2] > 0;
}

/* One data line: device \t scene \t variant \t grid \t block \t ms \t gbs */
static int parse_line(char *line, ks_best_entry *e)
{
    char *fields[8];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, "\t", &save); tok && n < 8; tok = strtok_r(NULL, "\t", &save))
        fields[n++] = tok;
    if (n != 7) return 0;
    if (strlen(fields[0]) >= sizeof e->device || strlen(fields[1]) >= sizeof e->scene ||
        strlen(fields[2]) >= sizeof e->variant)
        return 0;
    memset(e, 0, sizeof *e);
    strcpy(e->device, fields[0]);
    strcpy(e->scene, fields[1]);
    strcpy(e->variant, fields[2]);
    char *end;
    e->ms_per_iter = strtod(fields[5], &end);
    if (*end || !(e->ms_per_iter > 0) || !isfinite(e->ms_per_iter)) return 0;
    e->t_eff_gbs = strtod(fields[6], &end);
    if (*end || !(e->t_eff_gbs >= 0) || !isfinite(e->t_eff_gbs)) return 0;
    return parse_triple(fields[3], e->grid) && parse_triple(fields[4], e->block);
}

void ks_best_load(const char *path, ks_best_store *store, char *notice, size_t notice_len)
{
    store->count = 0;
    notice[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return; /* nothing measured yet */
    char line[1024];
    int lineno = 0, dropped = 0;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') goto corrupt;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (lineno == 1) {
            if (strcmp(line, ks_best_magic) != 0) goto corrupt;
            continue;
        }
        if (len == 0 || line[0] == '#') continue;
        ks_best_entry e;
        if (!parse_line(line, &e)) goto corrupt;
        const int dims = strcmp(e.scene, "laplace3d") == 0 ? 3 : strcmp(e.scene, "laplace2d") == 0 ? 2 : 0;
        if (!dims || ks_lvariant_find(dims, e.variant) < 0) {
            ++dropped; /* stale: a variant this build no longer has */
            continue;
        }
        if (store->count < KS_BEST_MAX) store->entries[store->count++] = e;
    }
    if (ferror(f)) goto corrupt;
    fclose(f);
    if (dropped)
        snprintf(notice, notice_len, "best-config %s: ignored %d stale entr%s (unknown kernels)",
                 path, dropped, dropped == 1 ? "y" : "ies");
    return;
corrupt:
    fclose(f);
    store->count = 0;
    snprintf(notice, notice_len,
             "best-config %s: line %d is not in the expected format; ignoring the file (delete it "
             "or re-run kernelscope bench)",
             path, lineno);
}

static double grid_distance(const int a[3], const int b[3])
{
    const double pa = (double)a[0] * a[1] * a[2], pb = (double)b[0] * b[1] * b[2];
    return fabs(log(pa / pb));
}

const ks_best_entry *ks_best_find(const ks_best_store *store, const char *device,
                                  const char *scene, const char *variant, const int grid[3])
{
    const ks_best_entry *best = NULL;
    double best_dist = INFINITY;
    for (int i = 0; i < store->count; ++i) {
        const ks_best_entry *e = &store->entries[i];
        if (strcmp(e->device, device) || strcmp(e->scene, scene)) continue;
        if (variant && strcmp(e->variant, variant)) continue;
        const double d = grid_distance(e->grid, grid);
        /* nearest grid first; among equals, the fastest per iteration */
        if (!best || d < best_dist - 1e-9 ||
            (fabs(d - best_dist) <= 1e-9 && e->ms_per_iter < best->ms_per_iter)) {
            best = e;
            best_dist = d;
        }
    }
    return best;
}

void ks_best_put(ks_best_store *store, const ks_best_entry *entry)
{
    for (int i = 0; i < store->count; ++i) {
        ks_best_entry *e = &store->entries[i];
        if (!strcmp(e->device, entry->device) && !strcmp(e->scene, entry->scene) &&
            !strcmp(e->variant, entry->variant) && !memcmp(e->grid, entry->grid, sizeof e->grid)) {
            *e = *entry;
            return;
        }
    }
    if (store->count < KS_BEST_MAX) store->entries[store->count++] = *entry;
}

static ks_status make_parent_dir(const char *path)
{
    char dir[1024];
    if (strlen(path) >= sizeof dir) return ks_fail(KS_ERR_IO, "best-config path too long");
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return KS_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return ks_fail(KS_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return ks_fail(KS_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
    return KS_OK;
}

ks_status ks_best_save(const char *path, const ks_best_store *store)
{
    KS_TRY(make_parent_dir(path));
    const size_t cap = 128 + (size_t)store->count * 320;
    char *text = malloc(cap);
    if (!text) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    size_t used = (size_t)snprintf(text, cap, "%s\n# device\tscene\tvariant\tgrid\tblock\tms_per_iter\tt_eff_gbs\n",
                                   ks_best_magic);
    for (int i = 0; i < store->count; ++i) {
        const ks_best_entry *e = &store->entries[i];
        used += (size_t)snprintf(text + used, cap - used, "%s\t%s\t%s\t%dx%dx%d\t%dx%dx%d\t%.6f\t%.1f\n",
                                 e->device, e->scene, e->variant, e->grid[0], e->grid[1], e->grid[2],
                                 e->block[0], e->block[1], e->block[2], e->ms_per_iter, e->t_eff_gbs);
    }
    ks_status st = ks_text_write(path, text, used);
    free(text);
    return st;
}
