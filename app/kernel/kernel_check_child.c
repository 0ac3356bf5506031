/* The checker process, the child's side (kernel_checker.h): a fresh exec of
 * this binary that makes its CUDA context, says it is ready, then serves one
 * request at a time with the scene's check (the registry row's kernel_check)
 * until its stdin closes or a check loses the context. The wire protocol is
 * kernel_check_wire.h. */
#define _GNU_SOURCE /* pipe2, F_DUPFD_CLOEXEC */
#include "app/kernel/kernel_checker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/kernel/kernel_check_wire.h"
#include "base/ks_util.h"

/* Reads (out 0) or writes n bytes, blocking: 0, or -1 on an error or the end of input. */
static int xfer(int fd, char *b, size_t n, int out)
{
    while (n > 0) {
        const ssize_t r = out ? write(fd, b, n) : read(fd, b, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Reads one request: 1 read, 0 at the end of input (before any byte), -1
 * malformed or cut short. *code is malloc'd. */
static int read_request(int fd, ks_kcheck_request *req, void **code)
{
    char line[KCHECK_HEADER_MAX];
    size_t n = 0;
    for (;;) { /* byte by byte: what follows the line is the file name and code */
        const ssize_t r = read(fd, line + n, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return n == 0 && r == 0 ? 0 : -1;
        if (line[n] == '\n') break;
        if (++n == sizeof line) return -1;
    }
    line[n] = '\0';
    enum { TOKENS = 17 };
    char *tok[TOKENS];
    int count = 0;
    for (char *p = line;;) { /* single spaces between tokens, none empty */
        char *sp = strchr(p, ' ');
        if (sp) *sp = '\0';
        if (!*p || count == TOKENS) return -1;
        tok[count++] = p;
        if (!sp) break;
        p = sp + 1;
    }
    static const long long lo[TOKENS - 2] = {1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    static const long long hi[TOKENS - 2] = {INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, 1,
                                             KS_KCHECK_CODE_MAX, KS_KCHECK_FILE_MAX - 1, 1, 2, INT_MAX, INT_MAX,
                                             INT_MAX};
    long long v[TOKENS - 2];
    if (count != TOKENS || strcmp(tok[0], KCHECK_MAGIC) != 0 || !ks_kcheck_scene_ok(tok[1], strlen(tok[1]))) return -1;
    for (int i = 0; i < TOKENS - 2; ++i)
        if (ks_kcheck_parse_num(tok[2 + i], strlen(tok[2 + i]), lo[i], hi[i], &v[i]) != 0) return -1;
    memset(req, 0, sizeof *req);
    memcpy(req->scene, tok[1], strlen(tok[1]));
    for (int i = 0; i < 3; ++i) {
        req->grid[i] = (int)v[i];
        req->block[i] = (int)v[3 + i];
    }
    req->iters = (int)v[6];
    req->cubin = (int)v[7];
    req->code_size = (size_t)v[8];
    const size_t file_len = (size_t)v[9];
    req->diff = (int)v[10];
    req->axis = (int)v[11];
    req->index = (int)v[12];
    req->cells[0] = (int)v[13];
    req->cells[1] = (int)v[14];
    int w, h;
    if (req->diff && (!ks_kcheck_diff_dims(req, &w, &h) || (long long)w * h > KS_KCHECK_DIFF_MAX)) return -1;
    if (xfer(fd, req->file, file_len, 0) != 0 || memchr(req->file, '\0', file_len)) return -1;
    if (!(*code = malloc(req->code_size))) return -1;
    req->code = *code;
    return xfer(fd, *code, req->code_size, 0) == 0 ? 1 : -1;
}

/* The answer line, the message escaped ('\' and newline) so that it stays
 * one line, then the difference slice when the request asked for one and the
 * check made it at the size asked (a check's slice of any other size is
 * dropped: the parent would refuse the whole answer). */
static int write_answer(int fd, const ks_kcheck_request *req, const ks_kcheck_result *res, long long us)
{
    int w = 0, h = 0;
    const int diff = req->diff && res->diff && ks_kcheck_diff_dims(req, &w, &h) && res->diff_w == w && res->diff_h == h;
    if (!diff) w = h = 0;
    char line[KCHECK_LINE_MAX];
    int n = snprintf(line, sizeof line, KCHECK_MAGIC " %d %d %lld %d %d ", res->passed ? 1 : 0, res->fatal ? 1 : 0, us,
                     w, h);
    for (size_t i = 0; i < sizeof res->message && res->message[i]; ++i) {
        const char ch = res->message[i];
        if (ch == '\\' || ch == '\n') line[n++] = '\\';
        line[n++] = ch == '\n' ? 'n' : ch;
    }
    line[n++] = '\n';
    if (xfer(fd, line, (size_t)n, 1) != 0) return -1;
    return diff ? xfer(fd, (char *)res->diff, (size_t)w * (size_t)h * sizeof *res->diff, 1) : 0;
}

int ks_kchecker_child_main(int in_fd, int out_fd, void (*warm)(void), ks_kcheck_fn check)
{
    /* the answers get a descriptor of their own and stdout goes to stderr, so
       that a stray printf in a check cannot break a line */
    const int answers = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
    if (answers < 0 || (out_fd == STDOUT_FILENO && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)) return 2;
    if (warm) warm();
    char ready[] = KCHECK_MAGIC " ready\n";
    int code = xfer(answers, ready, sizeof ready - 1, 1) == 0 ? -1 : 2;
    while (code < 0) {
        ks_kcheck_request req;
        void *bytes = NULL;
        const int got = read_request(in_fd, &req, &bytes);
        if (got <= 0) {
            code = got == 0 ? 0 : 2;
        } else {
            ks_kcheck_result res;
            memset(&res, 0, sizeof res);
            ks_error_clear();
            const double t0 = ks_now_seconds();
            if (check(&req, &res) != KS_OK) { /* the request could not be served: a failed check */
                res.passed = 0;
                snprintf(res.message, sizeof res.message, "%s", ks_error_message());
            }
            const long long us = (long long)((ks_now_seconds() - t0) * 1e6);
            const int written = write_answer(answers, &req, &res, us);
            ks_kcheck_result_free(&res);
            if (written != 0) code = 2;
            else if (res.fatal) { /* the CUDA context is lost: a new child serves the next one */
                close(answers);
                free(bytes);
                _exit(3); /* now: the runtime's exit-time teardown of a lost context can hang */
            }
        }
        free(bytes);
    }
    close(answers);
    return code;
}

int ks_kcheck_failed(ks_status st, ks_kcheck_result *out, const char *what)
{
    if (st == KS_OK) return 0;
    out->passed = 0;
    out->fatal = st == KS_ERR_CUDA;
    /* the user's words: CUDA's error, never our call, file or line */
    snprintf(out->message, sizeof out->message, "%s: %s", what, ks_error_cause());
    return 1;
}

int ks_kcheck_refused(ks_status st, ks_kcheck_result *out)
{
    if (st == KS_OK) return 0;
    snprintf(out->message, sizeof out->message, "%s", ks_error_message());
    return 1;
}

ks_user_code *ks_kcheck_load(const ks_kcheck_request *req,
                             ks_status (*load)(const char *name, const void *code, size_t size, ks_user_code **out),
                             ks_kcheck_result *out)
{
    ks_user_code *code = NULL;
    return ks_kcheck_refused(load(req->file, req->code, req->code_size, &code), out) ? NULL : code;
}

void ks_kcheck_unload(ks_user_code *code, const ks_kcheck_result *out)
{
    if (!out->fatal) ks_user_code_destroy(code);
}

void ks_kcheck_give_diff(ks_kcheck_result *out, float *diff, int made, int w, int h)
{
    if (!made) {
        free(diff);
        return;
    }
    out->diff = diff;
    out->diff_w = w;
    out->diff_h = h;
}
