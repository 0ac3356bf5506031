/* The Laplace scenes' check of a user's kernel, in the checker process (registry row's kernel_check). */
#ifndef KS_LAPLACE_KERNEL_CHECK_H
#define KS_LAPLACE_KERNEL_CHECK_H

#include "app/kernel/kernel_checker.h"

ks_status ks_laplace_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out);

#endif
