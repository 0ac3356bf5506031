/* laplace_tblock.cu in a build without CUDA. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "laplace.h"

/* Nothing runs without CUDA, so no variant has a code path to name. */
const char *ks_lvariant_code_path(int id)
{
    (void)id;
    return NULL;
}
