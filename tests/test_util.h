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
/* Fresh empty directory under /tmp; path written into buf. When the test
 * program exits 0 (or 77, skipped) the directory and the files beside it named
 * after it ("<dir>.err") are removed; on a failure they are kept and stderr
 * says where. */
void ks_test_tmpdir(char *buf, size_t len, const char *tag);
/* 1 when a CUDA device is usable from this process. */
int ks_test_have_cuda(void);
/* Starts the binary in the background with argv (argv[0] replaced), no
 * display and no best-config store; stdout into out_path (NULL: /dev/null),
 * stderr into err_path. -1 when it cannot fork. */
pid_t ks_test_spawn(const char *const *argv, const char *out_path, const char *err_path);
/* The waits below take a timeout_s: KS_TEST_NO_DEADLINE waits for what the
 * program does, however long a loaded machine (or a sanitizer build) makes
 * it, with ctest's TIMEOUT the only limit; meanwhile a line a minute on
 * stderr says what is awaited. Tests wait so; a number of seconds gives up
 * after that long. */
#define KS_TEST_NO_DEADLINE 0
/* Its exit status (1000 + the signal when one ended it), or -1 when it did
 * not end within timeout_s seconds (it is then killed). */
int ks_test_wait_exit(pid_t pid, int timeout_s);
void ks_test_sleep_ms(long ms);

/* A run started in the background whose stdout and stderr the test reads
 * through pipes, so that it waits for what the program says (a "stopping"
 * line, a progress line) instead of sleeping. */
typedef struct ks_test_proc {
    pid_t pid;
    int fd[2];            /* stdout, stderr read ends; -1 once at end of file */
    char text[2][65536];  /* what each said so far (cut) */
    size_t len[2];
    size_t seen[2];       /* ks_test_wait_for looks from here on */
} ks_test_proc;
/* Starts it as ks_test_spawn does (no display, no best-config store). */
void ks_test_start(ks_test_proc *p, const char *const *argv);
/* Reads until needle appears in stream (1 stdout, 2 stderr) after what an
 * earlier wait matched: 1, and the next wait looks after it; 0 when the
 * stream ended first; -1 after timeout_s seconds. */
int ks_test_wait_for(ks_test_proc *p, int stream, const char *needle, int timeout_s);
/* Reads both streams to their end, then the exit status as ks_test_wait_exit
 * (-1 and killed when it did not end within timeout_s seconds). */
int ks_test_finish(ks_test_proc *p, int timeout_s);
/* Waits until pid catches sig (its handler is installed: /proc/PID/status):
 * 1, or 0 after timeout_s seconds. */
int ks_test_wait_handler(pid_t pid, int sig, int timeout_s);
/* Waits until pid has used cpu_s seconds of CPU time (all its threads), a
 * measure of its progress that load does not stretch: 1, or 0 after
 * timeout_s seconds of wall time or when it ended. */
int ks_test_wait_cpu(pid_t pid, double cpu_s, int timeout_s);
/* pid's CPU time so far (utime + stime of all its threads), seconds; -1 when it is gone. */
double ks_test_cpu_seconds(pid_t pid);
/* The first 64 KiB of a file as a zero-terminated string (malloc'd), or NULL
 * when it cannot be opened. */
char *ks_test_read_file(const char *path);
/* Writes text to path (created or truncated); fails the calling test when it cannot. */
void ks_test_write_file(const char *path, const char *text);
/* Runs argv with no display (DISPLAY and WAYLAND_DISPLAY unset), as a bench
 * does headless: skips the calling test where headless GL (EGL) cannot start,
 * fails it on any other non-zero exit. Then returns dir/name (read as
 * ks_test_read_file; the test fails when it is missing). Call from a test. */
char *ks_test_run_headless_read(const char *const *argv, const char *dir, const char *name, ks_run_result *r);

/* One HTTP/1.1 request to 127.0.0.1:port on a connection of its own
 * (Connection: close): METHOD target, body_len bytes of body (with a
 * Content-Length when send_len), the answer read to its end. The HTTP status,
 * or -1 when none came; answer holds the answer's body (cap bytes at most). */
int ks_test_http(int port, const char *method, const char *target, const char *body, size_t body_len, int send_len,
                 char *answer, size_t cap);

#endif
