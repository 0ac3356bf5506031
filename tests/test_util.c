#include "test_util.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernels/common/cuda_device.h"

const char *ks_test_binary(void)
{
    const char *b = getenv("KS_BINARY");
    return b && *b ? b : "kernelscope";
}

static void slurp(int fd, char *buf, size_t cap)
{
    size_t used = 0;
    for (;;) {
        char tmp[4096];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n <= 0) break;
        size_t take = (size_t)n;
        if (used + take >= cap) take = cap - 1 - used;
        memcpy(buf + used, tmp, take);
        used += take;
    }
    buf[used] = '\0';
}

int ks_test_run(const char *const *argv, const char *const *env, ks_run_result *r)
{
    memset(r, 0, sizeof *r);
    char out_path[] = "/tmp/ks-test-out-XXXXXX", err_path[] = "/tmp/ks-test-err-XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    if (out_fd < 0 || err_fd < 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        for (const char *const *e = env; e && *e; ++e) {
            char name[256];
            const char *eq = strchr(*e, '=');
            size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
            if (len >= sizeof name) continue;
            memcpy(name, *e, len);
            name[len] = '\0';
            if (eq && eq[1]) setenv(name, eq + 1, 1);
            else unsetenv(name);
        }
        const char *args[64];
        int n = 0;
        args[n++] = ks_test_binary();
        for (int i = 1; argv[i] && n < 63; ++i) args[n++] = argv[i];
        args[n] = NULL;
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    lseek(out_fd, 0, SEEK_SET);
    lseek(err_fd, 0, SEEK_SET);
    slurp(out_fd, r->out, sizeof r->out);
    slurp(err_fd, r->err, sizeof r->err);
    close(out_fd);
    close(err_fd);
    unlink(out_path);
    unlink(err_path);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return 0;
}

int ks_test_count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; ++p)
        if (*p == '\n') ++n;
    if (*text && text[strlen(text) - 1] != '\n') ++n;
    return n;
}

void ks_test_tmpdir(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/ks-%s-XXXXXX", tag);
    if (!mkdtemp(buf)) buf[0] = '\0';
}

int ks_test_have_cuda(void)
{
    ks_device_info info;
    return ks_cuda_probe(&info) == KS_OK && info.present;
}

pid_t ks_test_spawn(const char *const *argv, const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0) _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        unsetenv("DISPLAY");
        unsetenv("WAYLAND_DISPLAY");
        setenv("KS_BEST_CONFIG", "/nonexistent/ks-best", 1);
        execv(ks_test_binary(), (char *const *)argv);
        _exit(127);
    }
    return pid;
}

void ks_test_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int ks_test_wait_exit(pid_t pid, int timeout_s)
{
    int status = 0;
    for (long i = 0; i < (long)timeout_s * 50; ++i) { /* every 20 ms */
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
        ks_test_sleep_ms(20);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

char *ks_test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 16);
    if (buf && fread(buf, 1, (1 << 16) - 1, f) == 0) buf[0] = '\0';
    fclose(f);
    return buf;
}

char *ks_test_run_headless_read(const char *const *argv, const char *dir, const char *name, ks_run_result *r)
{
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    assert_int_equal(ks_test_run(argv, env, r), 0);
    if (r->exit_code != 0 && strstr(r->err, "EGL")) skip(); /* no headless GL on this machine */
    if (r->exit_code != 0) fail_msg("%s %s: exit %d: %s", argv[1], argv[2] ? argv[2] : "", r->exit_code, r->err);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = ks_test_read_file(path);
    if (text == NULL) fail_msg("%s was not written", path);
    return text;
}
