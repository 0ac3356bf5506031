/* The reduce scene's check of a user's kernel, in the checker process (registry row's kernel_check). */
#ifndef KS_REDUCE_KERNEL_CHECK_H
#define KS_REDUCE_KERNEL_CHECK_H

#include "app/kernel/kernel_checker.h"

ks_status ks_reduce_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out);

#endif
