/* What test_kernel_checker.c's main takes from test_kernel_check_memcheck.c,
 * and what that file takes from test_kernel_checker.c (its helpers and the
 * fake check's code bytes). */
#ifndef KS_TEST_KERNEL_CHECK_MEMCHECK_H
#define KS_TEST_KERNEL_CHECK_MEMCHECK_H

#include <stddef.h>

#include "app/kernel/kernel_checker.h"

/* test_kernel_check_memcheck.c */
void test_fault_names_the_line(void **state);
void test_first_check_memchecked(void **state);
void test_first_check_hangs(void **state);
void test_no_sanitizer(void **state);
void test_find_sanitizer(void **state);
/* The child's side, in the fake check of the scene "fatal": under the stand-in tool, leaves the
   report of an out-of-bounds write that the tool writes to its log once the child has ended. */
void memcheck_leave_report(void);

/* test_kernel_checker.c */
extern unsigned char code[3 << 20];
/* A request of the fake check's scene for file, of size bytes of code. */
ks_kcheck_request request(const char *scene, const char *file, size_t size);
/* Its answer (KS_OK asserted, one line). */
ks_kcheck_result run(ks_kchecker *c, const char *scene, const char *file, size_t size);
/* A pass that shows the request arrived whole. */
void expect_pass(ks_kchecker *c, size_t size, const char *tag);
/* pid is gone and reaped. */
void expect_reaped(int pid);
/* The checker destroyed, its child reaped. */
void destroy(ks_kchecker *c);

#endif
