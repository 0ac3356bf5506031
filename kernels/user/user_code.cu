/* A user's compiled kernel loaded as a contract says (user_code.h), through
 * user_library.h (no link to the driver library). */
#include "user_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "base/cuda_check.h"
#include "user_library.h"

struct ks_user_code {
    ks_user_library mod;
    ks_user_code_attrs attrs;
    char name[256];
    int declared;
    ks_kdecl decl;
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

/* The declaration the file carries (the text ks_kdecl_suffix appended), read
 * from its code before the entry is looked up, since it may name another
 * entry. A library that does not load says nothing here: the load says why. */
static ks_status read_declaration(const char *name, const void *code, ks_kdecl *out, int *found)
{
    *found = 0;
    cudaLibrary_t lib = NULL;
    if (cudaLibraryLoadData(&lib, code, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess) {
        cudaGetLastError();
        return KS_OK;
    }
    char text[600] = "";
    long long values[KS_KDECL_V_COUNT] = {0};
    void *dev = NULL;
    size_t bytes = 0;
    cudaError_t e = cudaLibraryGetGlobal(&dev, &bytes, lib, KS_KDECL_TEXT);
    if (e == cudaSuccess) {
        *found = 1;
        if (bytes >= sizeof text) e = cudaErrorInvalidValue;
        if (e == cudaSuccess) e = cudaMemcpy(text, dev, bytes, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaLibraryGetGlobal(&dev, &bytes, lib, KS_KDECL_VALUES);
        if (e == cudaSuccess && bytes != sizeof values) e = cudaErrorInvalidValue;
        if (e == cudaSuccess) e = cudaMemcpy(values, dev, bytes, cudaMemcpyDeviceToHost);
    } else {
        e = cudaSuccess; /* none declared */
    }
    const char *what = cudaGetErrorString(e);
    cudaGetLastError();
    cudaLibraryUnload(lib);
    if (e != cudaSuccess) return ks_fail(KS_ERR_CUDA, "%s: reading its kernelscope: declaration: %s", name, what);
    if (!*found) return KS_OK;
    text[sizeof text - 1] = '\0';
    return ks_kdecl_read_back(text, values, name, out);
}

/* The entry's parameters against the declaration's arguments: as many, each its size. */
static ks_status check_params(const ks_user_code *u)
{
    const ks_kdecl *d = &u->decl;
    if (u->attrs.params < 0) return KS_OK; /* the runtime cannot tell */
    if (u->attrs.params != d->nargs)
        return ks_fail(KS_ERR_INVALID, "%s: %s takes %d argument%s, its kernelscope: line names %d", u->name, d->entry,
                       u->attrs.params, u->attrs.params == 1 ? "" : "s", d->nargs);
    for (int a = 0; a < d->nargs && a < 16; ++a) {
        const int want = ks_kdecl_arg_bytes(&d->args[a]);
        if (u->attrs.param_size[a] != want)
            return ks_fail(KS_ERR_INVALID, "%s: %s's argument %d is %d bytes, but the kernelscope: line says %s (%d)",
                           u->name, d->entry, a + 1, u->attrs.param_size[a], d->args[a].role, want);
    }
    return KS_OK;
}

extern "C" ks_status ks_user_code_load(const ks_user_code_desc *d, const char *name, const void *code, size_t size,
                                       ks_user_code **out)
{
    *out = NULL;
    if (!code || !size) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    ks_user_code *u = (ks_user_code *)calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    snprintf(u->name, sizeof u->name, "%s", name);
    ks_status st = read_declaration(name, code, &u->decl, &u->declared);
    if (st == KS_OK && u->declared && !d->roles)
        st = ks_fail(KS_ERR_INVALID, "%s: this scene takes no kernelscope: line yet; write the kernel to its contract "
                     "(kernelscope new-kernel writes a starter)", name);
    if (st == KS_OK && u->declared) st = ks_kdecl_roles_check(&u->decl, name, d->roles, d->need ? d->need : d->roles, d->grids);
    if (st == KS_OK) st = ks_user_library_load(name, code, u->declared ? u->decl.entry : d->entry, &u->mod);
    if (st == KS_OK) {
        u->attrs.registers = u->mod.registers;
        u->attrs.static_smem = u->mod.static_smem;
        u->attrs.max_threads = u->mod.max_threads;
        u->attrs.params = u->mod.params;
        for (int k = 0; k < u->mod.params && k < 16; ++k) u->attrs.param_size[k] = u->mod.param_size[k];
        st = read_constant(d, u);
        if (st == KS_OK && u->declared) st = check_params(u);
        if (st == KS_OK && u->declared && d->decl_check) st = d->decl_check(&u->decl, name);
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

extern "C" const ks_kdecl *ks_user_code_declaration(const ks_user_code *u)
{
    return u && u->declared ? &u->decl : NULL;
}

extern "C" const void *ks_user_code_function(const ks_user_code *u) { return u ? (const void *)u->mod.fn : NULL; }

extern "C" int ks_user_code_global(const ks_user_code *u, const char *symbol, void **dev, size_t *bytes)
{
    *dev = NULL;
    *bytes = 0;
    return u ? ks_user_library_global(&u->mod, symbol, dev, bytes) : 0;
}

extern "C" ks_status ks_user_code_launch_1d(const ks_user_code *u, const int block[3], long long n, const char *items,
                                            ks_user_launch_1d *out)
{
    const ks_kdecl *d = ks_user_code_declaration(u);
    if (!d) return ks_fail(KS_ERR_INVALID, "%s: no kernelscope: line to launch it by", ks_user_code_name(u));
    const char *name = u->name;
    int b[3];
    ks_kdecl_block(d, block, b);
    if (b[1] != 1 || b[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s takes a 1-part block (BXx1), got %dx%dx%d", name, b[0], b[1], b[2]);
    if (b[0] < 1 || b[0] > u->attrs.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: its block %d: the compiled kernel takes 1 to %d threads", name, b[0],
                       u->attrs.max_threads);
    out->threads = b[0];
    out->shared = ks_kdecl_shared(d, b[0]);
    int dev = 0, optin = 0, sms = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (out->shared + (size_t)u->attrs.static_smem > (size_t)optin)
        return ks_fail(KS_ERR_INVALID, "%s: %zu bytes of dynamic shared memory a block (and %d static): this GPU has "
                       "at most %d", name, out->shared, u->attrs.static_smem, optin);
    const int at = ks_kdecl_arg_index(d, "n");
    if (at >= 0 && ks_kdecl_arg_bytes(&d->args[at]) == 4 && n > 2147483647LL)
        return ks_fail(KS_ERR_INVALID, "%s: its n is an int, and %lld %s do not fit one", name, n, items);
    const long long per_sm = d->value[KS_KDECL_V_SM] > 0 ? d->value[KS_KDECL_V_SM] : 0;
    if (d->grid == KS_KDECL_GRID_SM) out->grid = (unsigned long long)per_sm * (unsigned long long)sms;
    else out->grid = ((unsigned long long)n + (unsigned long long)b[0] - 1) / (unsigned long long)b[0];
    if (out->grid < 1 || out->grid > 2147483647ull)
        return ks_fail(KS_ERR_INVALID, "%s: its grid of %llu blocks over %lld %s (1 to 2^31 - 1)", name, out->grid, n,
                       items);
    return KS_OK;
}

extern "C" ks_status ks_user_code_launch_declared(const ks_user_code *u, const ks_user_launch_1d *l,
                                                  const ks_user_arg *args, int nargs, long long n, void *stream)
{
    const ks_kdecl *d = ks_user_code_declaration(u);
    if (!d) return ks_fail(KS_ERR_INVALID, "%s: no kernelscope: line to launch it by", ks_user_code_name(u));
    const void *fn = ks_user_code_function(u);
    if (l->shared > 48 * 1024) /* above the default, the kernel must ask for it */
        KS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)l->shared));
    int n4 = (int)n;
    long long n8 = n;
    void *values[KS_KDECL_ARGS_MAX];
    for (int a = 0; a < d->nargs; ++a) {
        values[a] = ks_kdecl_arg_bytes(&d->args[a]) == 8 ? (void *)&n8 : (void *)&n4;
        for (int k = 0; k < nargs; ++k)
            if (!strcmp(d->args[a].role, args[k].role)) values[a] = (void *)args[k].value;
    }
    KS_CUDA_TRY(cudaLaunchKernel(fn, dim3((unsigned)l->grid), dim3((unsigned)l->threads), values, l->shared,
                                 (cudaStream_t)stream));
    return KS_OK;
}
