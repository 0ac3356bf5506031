/* Helpers shared by the app-level tests: run the kernelscope binary and
 * capture its exit status and output; scratch directories; PNG loading. */
#ifndef KS_TEST_UTIL_H
#define KS_TEST_UTIL_H

#include <stddef.h>

typedef struct ks_run_result {
    int exit_code;      /* -1 when it did not exit normally */
    char out[16384];    /* stdout (cut) */
    char err[16384];    /* stderr (cut) */
} ks_run_result;

/* Path of the kernelscope binary (KS_BINARY, set by ctest). */
const char *ks_test_binary(void);
/* Runs argv (argv[0] is replaced by the binary when NULL) with extra
 * environment assignments ("NAME=value", or "NAME=" to unset); NULL-terminated lists. */
int ks_test_run(const char *const *argv, const char *const *env, ks_run_result *r);
/* Lines in text (a final line without '\n' counts). */
int ks_test_count_lines(const char *text);
/* Fresh empty directory under /tmp; path written into buf. */
void ks_test_tmpdir(char *buf, size_t len, const char *tag);
/* 1 when a CUDA device is usable from this process. */
int ks_test_have_cuda(void);

#endif
