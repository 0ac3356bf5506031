/* A user's compiled kernel loaded as a contract says (user_code.h), through
 * user_library.h (no link to the driver library). */
#include "user_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user_library.h"

struct ks_user_code {
    ks_user_library mod;
    ks_user_code_attrs attrs;
    char name[256];
};

/* The file's tuning constant, or 1 1 1 without one; each value in its range. */
static ks_status read_constant(const ks_user_code_desc *d, ks_user_code *u)
{
    int *p = u->attrs.per_thread;
    p[0] = p[1] = p[2] = 1;
    int found = 0;
    if (!d->symbol) return KS_OK;
    KS_TRY(ks_user_library_ints(&u->mod, u->name, d->symbol, d->count, p, &found));
    int ok = 1;
    for (int a = 0; found && a < d->count; ++a) ok &= p[a] >= 1 && p[a] <= d->max[a];
    if (ok) return KS_OK;
    char value[64], rule[128];
    if (d->count == 1) snprintf(value, sizeof value, "%d", p[0]);
    else snprintf(value, sizeof value, "{%d, %d, %d}", p[0], p[1], p[2]);
    snprintf(rule, sizeof rule, d->rule, d->max[0]);
    return ks_fail(KS_ERR_INVALID, "%s: %s is %s: %s", u->name, d->symbol, value, rule);
}

extern "C" ks_status ks_user_code_load(const ks_user_code_desc *d, const char *name, const void *code, size_t size,
                                       ks_user_code **out)
{
    *out = NULL;
    if (!code || !size) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    ks_user_code *u = (ks_user_code *)calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    snprintf(u->name, sizeof u->name, "%s", name);
    ks_status st = ks_user_library_load(name, code, d->entry, &u->mod);
    if (st == KS_OK) {
        u->attrs.registers = u->mod.registers;
        u->attrs.static_smem = u->mod.static_smem;
        u->attrs.max_threads = u->mod.max_threads;
        u->attrs.params = u->mod.params;
        for (int k = 0; k < u->mod.params && k < 16; ++k) u->attrs.param_size[k] = u->mod.param_size[k];
        st = read_constant(d, u);
    }
    if (st != KS_OK) {
        ks_user_code_destroy(u);
        return st;
    }
    *out = u;
    return KS_OK;
}

extern "C" void ks_user_code_destroy(ks_user_code *u)
{
    if (!u) return;
    ks_user_library_unload(&u->mod);
    free(u);
}

extern "C" const char *ks_user_code_name(const ks_user_code *u) { return u ? u->name : ""; }

extern "C" void ks_user_code_get_attrs(const ks_user_code *u, ks_user_code_attrs *out) { *out = u->attrs; }

extern "C" const void *ks_user_code_function(const ks_user_code *u) { return u ? (const void *)u->mod.fn : NULL; }

extern "C" int ks_user_code_global(const ks_user_code *u, const char *symbol, void **dev, size_t *bytes)
{
    *dev = NULL;
    *bytes = 0;
    return u ? ks_user_library_global(&u->mod, symbol, dev, bytes) : 0;
}
