/* What test_kernel_checker.c's main takes from test_kernel_check_wire.c. */
#ifndef KS_TEST_KERNEL_CHECK_WIRE_H
#define KS_TEST_KERNEL_CHECK_WIRE_H

/* The child refuses malformed requests (exit 2) and serves well-formed ones. */
void test_child_strict(void **state);
/* The raw child: "ready", then for each request line the answer line and the
 * values (comma-separated), cut to cut bytes when cut >= 0 (and then gone). */
int raw_child(const char *line, const char *values, int cut);

#endif
