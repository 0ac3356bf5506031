/* user_code.h in a build without CUDA: nothing loads. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "user_code.h"

ks_status ks_user_code_load(const ks_user_code_desc *desc, const char *name, const void *code, size_t size,
                            ks_user_code **out)
{
    (void)desc, (void)code, (void)size;
    *out = NULL;
    return KS_NO_CUDA(name);
}
void ks_user_code_destroy(ks_user_code *u) { (void)u; }
const char *ks_user_code_name(const ks_user_code *u)
{
    (void)u;
    return "";
}
void ks_user_code_get_attrs(const ks_user_code *u, ks_user_code_attrs *out)
{
    (void)u;
    memset(out, 0, sizeof *out);
}
const ks_kdecl *ks_user_code_declaration(const ks_user_code *u)
{
    (void)u;
    return NULL;
}
const void *ks_user_code_function(const ks_user_code *u)
{
    (void)u;
    return NULL;
}
int ks_user_code_global(const ks_user_code *u, const char *symbol, void **dev, size_t *bytes)
{
    (void)u, (void)symbol;
    *dev = NULL;
    *bytes = 0;
    return 0;
}
ks_status ks_user_code_launch_1d(const ks_user_code *u, const int block[3], long long n, const char *items,
                                 ks_user_launch_1d *out)
{
    (void)u, (void)block, (void)n, (void)items;
    memset(out, 0, sizeof *out);
    return KS_NO_CUDA("a declared launch");
}
ks_status ks_user_code_launch_declared(const ks_user_code *u, const ks_user_launch_1d *l, const ks_user_arg *args,
                                       int nargs, long long n, void *stream)
{
    (void)u, (void)l, (void)args, (void)nargs, (void)n, (void)stream;
    return KS_NO_CUDA("a declared launch");
}
