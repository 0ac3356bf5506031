/* laplace_user.cu in a build without CUDA: a user's kernel as a variant; nothing loads. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "laplace.h"

ks_status ks_luser_load(int id, const void *code, size_t size)
{
    (void)id, (void)code, (void)size;
    return KS_NO_CUDA("running a user's kernel");
}
int ks_luser_ready(int id) { (void)id; return 0; }
long long ks_luser_generation(int id) { (void)id; return 0; }
const struct ks_kdecl *ks_luser_declaration(int id)
{
    (void)id;
    return NULL;
}
