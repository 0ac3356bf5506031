/* For the *_nocuda.c files of a build without CUDA (KS_CUDA=OFF): every GPU
 * entry point fails with this one line; the app only reaches them through the
 * device probe, which already reports "built without CUDA". */
#ifndef KS_NOCUDA_H
#define KS_NOCUDA_H

#include "ks_error.h"

#define KS_NO_CUDA(what) ks_fail(KS_ERR_UNSUPPORTED, "%s: kernelscope was built without CUDA", (what))

#endif
