/* The matmul scene's contract of a user's kernel: its check in the checker process (the
 * registry row's kernel_check) and how the live view and the bench load it. */
#ifndef KS_MATMUL_KERNEL_CHECK_H
#define KS_MATMUL_KERNEL_CHECK_H

#include "app/kernel/kernel_checker.h"
#include "app/kernel/variant_set.h"

ks_status ks_matmul_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out);

extern const ks_variant_contract ks_matmul_contract;

#endif
