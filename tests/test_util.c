#define _GNU_SOURCE /* on_exit: the exit status decides whether scratch folders go */
#include "test_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/cuda_device.h"

static long long clock_gettime_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

/* The scratch directories of this test program, removed at exit when it passed. */
static char ks_tmpdirs[128][256];
static int ks_ntmpdirs;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void tmpdirs_at_exit(int status, void *arg)
{
    (void)arg;
    const int passed = status == 0 || status == 77;
    for (int i = 0; i < ks_ntmpdirs; ++i) {
        if (!passed) {
            fprintf(stderr, "kept %s (the scratch of a failed test)\n", ks_tmpdirs[i]);
            continue;
        }
        nftw(ks_tmpdirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        char pattern[300]; /* "<dir>.err", "<dir>.out" beside it */
        snprintf(pattern, sizeof pattern, "%s.*", ks_tmpdirs[i]);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc; ++k) nftw(g.gl_pathv[k], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        globfree(&g);
    }
}

void ks_test_tmpdir(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/ks-%s-XXXXXX", tag);
    if (!mkdtemp(buf)) {
        buf[0] = '\0';
        return;
    }
    if (ks_ntmpdirs == 0) on_exit(tmpdirs_at_exit, NULL);
    if (ks_ntmpdirs < (int)(sizeof ks_tmpdirs / sizeof ks_tmpdirs[0]))
        snprintf(ks_tmpdirs[ks_ntmpdirs++], sizeof ks_tmpdirs[0], "%s", buf);
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

void ks_test_start(ks_test_proc *p, const char *const *argv)
{
    memset(p, 0, sizeof *p);
    p->fd[0] = p->fd[1] = -1;
    int out[2], err[2];
    if (pipe(out) != 0) fail_msg("pipe: %s", strerror(errno));
    if (pipe(err) != 0) fail_msg("pipe: %s", strerror(errno));
    fflush(NULL);
    p->pid = fork();
    if (p->pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        unsetenv("DISPLAY");
        unsetenv("WAYLAND_DISPLAY");
        setenv("KS_BEST_CONFIG", "/nonexistent/ks-best", 1);
        execv(ks_test_binary(), (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (p->pid < 0) fail_msg("fork: %s", strerror(errno));
    p->fd[0] = out[0];
    p->fd[1] = err[0];
}

/* Reads what is there (waiting at most timeout_ms for something); 0 when both streams ended. */
static int proc_read(ks_test_proc *p, int timeout_ms)
{
    struct pollfd pf[2];
    int n = 0, which[2];
    for (int s = 0; s < 2; ++s) {
        if (p->fd[s] < 0) continue;
        pf[n].fd = p->fd[s];
        pf[n].events = POLLIN;
        which[n++] = s;
    }
    if (n == 0) return 0;
    if (poll(pf, (nfds_t)n, timeout_ms) <= 0) return 1;
    for (int i = 0; i < n; ++i) {
        if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const int s = which[i];
        char tmp[4096];
        const ssize_t got = read(p->fd[s], tmp, sizeof tmp);
        if (got <= 0) {
            close(p->fd[s]);
            p->fd[s] = -1;
            continue;
        }
        size_t take = (size_t)got;
        if (p->len[s] + take >= sizeof p->text[s]) take = sizeof p->text[s] - 1 - p->len[s];
        memcpy(p->text[s] + p->len[s], tmp, take);
        p->len[s] += take;
        p->text[s][p->len[s]] = '\0';
    }
    return 1;
}

/* 1 when timeout_s (KS_TEST_NO_DEADLINE: none) has passed since t0_ms. Without
 * a deadline, says on stderr once a minute what is still awaited, so that a
 * run that hangs until ctest's TIMEOUT ends the test leaves a trace in its log. */
static int past_deadline(long long t0_ms, int timeout_s, long long *next_note_ms, const char *what, pid_t pid)
{
    const long long now = clock_gettime_ms();
    if (timeout_s > 0) return now - t0_ms > (long long)timeout_s * 1000;
    if (*next_note_ms == 0) *next_note_ms = t0_ms + 60000;
    if (now >= *next_note_ms) {
        fprintf(stderr, "test: still waiting for %s of pid %ld after %lld s\n", what, (long)pid, (now - t0_ms) / 1000);
        *next_note_ms += 60000;
    }
    return 0;
}

int ks_test_wait_for(ks_test_proc *p, int stream, const char *needle, int timeout_s)
{
    const int s = stream == 1 ? 0 : 1;
    const long long t0 = clock_gettime_ms();
    long long next_note = 0;
    char what[300];
    snprintf(what, sizeof what, "'%s' on %s", needle, stream == 1 ? "stdout" : "stderr");
    for (;;) {
        const char *at = strstr(p->text[s] + p->seen[s], needle);
        if (at) {
            p->seen[s] = (size_t)(at - p->text[s]) + strlen(needle);
            return 1;
        }
        if (p->fd[s] < 0) return 0;
        if (past_deadline(t0, timeout_s, &next_note, what, p->pid)) return -1;
        proc_read(p, 100);
    }
}

int ks_test_finish(ks_test_proc *p, int timeout_s)
{
    const long long t0 = clock_gettime_ms();
    long long next_note = 0;
    while (proc_read(p, 100))
        if (past_deadline(t0, timeout_s, &next_note, "the end of the output", p->pid)) break;
    for (int s = 0; s < 2; ++s)
        if (p->fd[s] >= 0) {
            close(p->fd[s]);
            p->fd[s] = -1;
        }
    if (timeout_s <= 0) return ks_test_wait_exit(p->pid, KS_TEST_NO_DEADLINE);
    const long long left = (long long)timeout_s * 1000 - (clock_gettime_ms() - t0);
    return ks_test_wait_exit(p->pid, left > 1000 ? (int)(left / 1000) : 1);
}

int ks_test_wait_handler(pid_t pid, int sig, int timeout_s)
{
    char path[64], what[64];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    snprintf(what, sizeof what, "a handler of signal %d", sig);
    const long long t0 = clock_gettime_ms();
    long long next_note = 0;
    while (!past_deadline(t0, timeout_s, &next_note, what, pid)) {
        FILE *f = fopen(path, "r");
        if (!f) return 0;
        char line[256], state = 0;
        unsigned long long caught = 0;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "State: %c", &state) == 1) continue;
            if (sscanf(line, "SigCgt: %llx", &caught) == 1) break;
        }
        fclose(f);
        if (caught & (1ull << (sig - 1))) return 1;
        if (state == 'Z' || state == 'X') return 0; /* it ended */
        ks_test_sleep_ms(5);
    }
    return 0;
}

double ks_test_cpu_seconds(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1.0;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold spaces */
    if (!p) return -1.0;
    char state;
    unsigned long long ut = 0, st = 0;
    /* fields 3.. after the name: state, then 10 numbers, then utime (14) and stime (15) */
    if (sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &ut, &st) != 3) return -1.0;
    if (state == 'Z') return -1.0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

int ks_test_wait_cpu(pid_t pid, double cpu_s, int timeout_s)
{
    const long long t0 = clock_gettime_ms();
    long long next_note = 0;
    char what[64];
    snprintf(what, sizeof what, "%.2f s of CPU time", cpu_s);
    while (!past_deadline(t0, timeout_s, &next_note, what, pid)) {
        const double used = ks_test_cpu_seconds(pid);
        if (used < 0.0) return 0;
        if (used >= cpu_s) return 1;
        ks_test_sleep_ms(5);
    }
    return 0;
}

void ks_test_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int ks_test_wait_exit(pid_t pid, int timeout_s)
{
    int status = 0;
    const long long t0 = clock_gettime_ms();
    long long next_note = 0;
    while (!past_deadline(t0, timeout_s, &next_note, "the exit", pid)) {
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

void ks_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("cannot write %s", path);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
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

int ks_test_http(int port, const char *method, const char *target, const char *body, size_t body_len, int send_len,
                 char *answer, size_t cap)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    char head[512];
    int n = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n", method,
                     target, port);
    if (send_len) n += snprintf(head + n, sizeof head - (size_t)n, "Content-Length: %zu\r\n", body_len);
    n += snprintf(head + n, sizeof head - (size_t)n, "\r\n");
    if (send(fd, head, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return -1;
    }
    for (size_t off = 0; off < body_len;) { /* refused early, the server may close before the body is in */
        const ssize_t w = send(fd, body + off, body_len - off, MSG_NOSIGNAL);
        if (w <= 0) break;
        off += (size_t)w;
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < cap && (r = recv(fd, answer + got, cap - 1 - got, 0)) > 0) got += (size_t)r;
    answer[got] = '\0';
    close(fd);
    int status = 0;
    if (sscanf(answer, "HTTP/1.1 %d", &status) != 1) return -1;
    const char *b = strstr(answer, "\r\n\r\n");
    if (b) memmove(answer, b + 4, strlen(b + 4) + 1);
    return status;
}
