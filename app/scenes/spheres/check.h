/* The spheres scene's contract of a user's kernel: its check in the checker process (the registry
 * row's kernel_check) and how the live view and the bench load it. */
#ifndef KS_SPHERES_KERNEL_CHECK_H
#define KS_SPHERES_KERNEL_CHECK_H

#include "app/kernel/kernel_checker.h"
#include "app/kernel/variant_set.h"

/* The check's own scene at the live size: the request's grid is {width, height, spheres}, the
 * spheres generated from this seed (the live view's may drift or come from a file). */
enum { KS_SPHERES_CHECK_SEED = 1 };

ks_status ks_spheres_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out);

extern const ks_variant_contract ks_spheres_contract;

#endif
