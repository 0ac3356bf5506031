/* Helpers shared by the app-level tests: run the kernelscope binary and
 * capture its exit status and output; scratch directories; PNG loading. */
#ifndef KS_TEST_UTIL_H
#define KS_TEST_UTIL_H

#include <stddef.h>
#include <sys/types.h>

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
/* Starts the binary in the background with argv (argv[0] replaced), no
 * display and no best-config store; stdout into out_path (NULL: /dev/null),
 * stderr into err_path. -1 when it cannot fork. */
pid_t ks_test_spawn(const char *const *argv, const char *out_path, const char *err_path);
/* Its exit status (1000 + the signal when one ended it), or -1 when it did
 * not end within timeout_s seconds (it is then killed). */
int ks_test_wait_exit(pid_t pid, int timeout_s);
void ks_test_sleep_ms(long ms);
/* The first 64 KiB of a file as a zero-terminated string (malloc'd), or NULL
 * when it cannot be opened. */
char *ks_test_read_file(const char *path);
/* Runs argv with no display (DISPLAY and WAYLAND_DISPLAY unset), as a bench
 * does headless: skips the calling test where headless GL (EGL) cannot start,
 * fails it on any other non-zero exit. Then returns dir/name (read as
 * ks_test_read_file; the test fails when it is missing). Call from a test. */
char *ks_test_run_headless_read(const char *const *argv, const char *dir, const char *name, ks_run_result *r);

#endif
