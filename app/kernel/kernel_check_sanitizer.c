/* compute-sanitizer for the checker (kernel_check_sanitizer.h): where the tool
 * is, the command line a check runs under it with, and the folder of its
 * report. The report goes to a file of its own (--log-file), never to the
 * child's stdout, which carries the checker's answers. */
#define _GNU_SOURCE /* realpath */
#include "app/kernel/kernel_check_sanitizer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/kernel/kernel_checker.h"

/* 1 when path is a regular file we may run (its path copied to out). */
static int runnable(const char *path, char *out, size_t cap)
{
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) return 0;
    return snprintf(out, cap, "%s", path) < (int)cap;
}

/* name in dir (a PATH entry or a toolkit's bin), when it is there and runnable. */
static int in_dir(const char *dir, size_t dir_len, const char *name, char *out, size_t cap)
{
    char path[PATH_MAX];
    if (dir_len == 0 || snprintf(path, sizeof path, "%.*s/%s", (int)dir_len, dir, name) >= (int)sizeof path) return 0;
    return runnable(path, out, cap);
}

int ks_kcheck_find_sanitizer(const char *explicit_path, char *out, size_t cap)
{
    static const char tool[] = "compute-sanitizer";
    if (explicit_path) return runnable(explicit_path, out, cap);
    const char *path = getenv("PATH");
    for (int pass = 0; pass < 2 && path; ++pass) /* the tool on PATH; then beside the nvcc on PATH */
        for (const char *p = path; *p;) {
            const size_t n = strcspn(p, ":"); /* an empty entry (this folder) is not searched */
            char nvcc[PATH_MAX], real[PATH_MAX];
            if (pass == 0 && in_dir(p, n, tool, out, cap)) return 1;
            if (pass == 1 && in_dir(p, n, "nvcc", nvcc, sizeof nvcc) && realpath(nvcc, real)) {
                char *slash = strrchr(real, '/'); /* where its link leads: the toolkit's bin */
                if (slash && in_dir(real, (size_t)(slash - real), tool, out, cap)) return 1;
            }
            p += n + (p[n] == ':');
        }
    const char *home = getenv("CUDA_HOME");
    char bin[PATH_MAX];
    if (home && *home && snprintf(bin, sizeof bin, "%s/bin", home) < (int)sizeof bin &&
        in_dir(bin, strlen(bin), tool, out, cap))
        return 1;
    return in_dir("/usr/local/cuda/bin", strlen("/usr/local/cuda/bin"), tool, out, cap);
}

int ks_kcheck_report_dir(char *dir, size_t dir_cap, char *log, size_t log_cap)
{
    const char *tmp = getenv("TMPDIR");
    /* the tool reads '%' in --log-file as its own (%p: the process id): a folder without one */
    if (!tmp || !*tmp || strchr(tmp, '%')) tmp = "/tmp";
    if (snprintf(dir, dir_cap, "%s/kernelscope-memcheck-XXXXXX", tmp) >= (int)dir_cap ||
        snprintf(log, log_cap, "%s/memcheck.log", dir) >= (int)log_cap)
        return ENAMETOOLONG;
    if (!mkdtemp(dir)) return errno;
    snprintf(log, log_cap, "%s/memcheck.log", dir); /* the folder's name made */
    return 0;
}

void ks_kcheck_report_dir_remove(const char *dir)
{
    if (!dir || !dir[0]) return;
    DIR *d = opendir(dir);
    if (d) { /* the report, and anything else the tool left (the folder is ours alone) */
        for (const struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

long long ks_kcheck_report_size(const char *log)
{
    struct stat st;
    return stat(log, &st) == 0 ? (long long)st.st_size : 0;
}

char *ks_kcheck_report_read(const char *log, long long offset)
{
    const int fd = open(log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return NULL;
    char *text = malloc(KCHECK_REPORT_MAX + 1);
    size_t n = 0;
    if (text && lseek(fd, (off_t)offset, SEEK_SET) != (off_t)offset) n = KCHECK_REPORT_MAX + 1; /* none */
    while (text && n < KCHECK_REPORT_MAX) {
        const ssize_t got = read(fd, text + n, KCHECK_REPORT_MAX - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        n += (size_t)got;
    }
    if (n > KCHECK_REPORT_MAX) n = 0;
    close(fd);
    if (text) text[n] = '\0';
    if (text && n == 0) {
        free(text);
        text = NULL;
    }
    return text;
}

char **ks_kcheck_memcheck_argv(const char *tool, const char *log, char *const *argv)
{
    /* memcheck only; its first error is the one said (a faulting kernel makes millions); no
       leak check and no API errors: only the kernel's own memory errors count. 4 MiB of padding
       after each allocation: a write just past the end of v (a plane too far) would otherwise
       land in the next allocation, a valid address to the tool */
    const char *const opts[] = {"--tool", "memcheck", "--log-file", log, "--print-limit", "1",
                                "--leak-check", "no", "--report-api-errors", "no", "--padding", "4194304"};
    const size_t n_opts = sizeof opts / sizeof opts[0];
    size_t n = 0;
    while (argv[n]) ++n;
    char **out = calloc(1 + n_opts + n + 1, sizeof *out);
    int ok = out && (out[0] = strdup(tool));
    for (size_t i = 0; ok && i < n_opts; ++i) ok = (out[1 + i] = strdup(opts[i])) != NULL;
    for (size_t i = 0; ok && i < n; ++i) ok = (out[1 + n_opts + i] = strdup(argv[i])) != NULL;
    if (!ok) {
        ks_kcheck_argv_free(out);
        return NULL;
    }
    return out;
}

void ks_kcheck_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; ++i) free(argv[i]);
    free(argv);
}
