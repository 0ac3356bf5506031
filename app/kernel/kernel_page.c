/* The page's editor of a kernel file (kernel_page.h). */
#include "app/kernel/kernel_page.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/kernel_watch.h"
#include "app/user_kernel.h"
#include "base/ks_util.h"
#include "render/image_io.h"
#include "render/view.h"
#include "serve/state_json.h"

enum { KS_PAGE_LOG_LINES = 3 }; /* compile lines the page shows, as the panel */

struct ks_kernel_page {
    ks_kernel_page_desc d;
    ks_server_editor editor;
    pthread_mutex_t lock; /* all below: the frame loop publishes, the server's thread reads */
    long long build;      /* builds of the file seen so far */
    int refused;          /* the last one was refused */
    char line[KS_KERNEL_WATCH_MSG];
    char log[KS_PAGE_LOG_LINES][KS_VIEW_TEXT];
    double save_to_run_ms; /* of the last build that runs */
    double pending_since;  /* a Compile not yet built (0: none): no second one meanwhile */
};

/* A Compile not yet built, within its time (lock held). */
static int pending(const ks_kernel_page *p)
{
    return p->pending_since > 0 && ks_now_seconds() - p->pending_since < p->d.pending_s;
}

static int busy(const ks_kernel_page *p) { return p->d.busy && p->d.busy(p->d.user); }

/* {"file", "source" (null when it cannot be read, with "read_error"), "busy",
 * "build", "refused", "line", "log", "save_to_running_ms"} */
static size_t describe(void *user, char *buf, size_t cap)
{
    ks_kernel_page *p = user;
    char *src = NULL;
    const ks_status read = ks_user_kernel_read(p->d.path, &src);
    size_t len = 0;
    int bad = ks_text_append(buf, cap, &len, "{\"file\":") ||
              ks_json_append_string(buf, cap, &len, ks_path_base_name(p->d.path));
    if (read == KS_OK)
        bad = bad || ks_text_append(buf, cap, &len, ",\"source\":") || ks_json_append_string(buf, cap, &len, src);
    else
        bad = bad || ks_text_append(buf, cap, &len, ",\"source\":null,\"read_error\":") ||
              ks_json_append_string(buf, cap, &len, ks_error_message());
    free(src);
    const int building = busy(p);
    pthread_mutex_lock(&p->lock);
    bad = bad ||
          ks_text_append(buf, cap, &len, ",\"busy\":%s,\"build\":%lld,\"refused\":%s,\"line\":",
                         building || pending(p) ? "true" : "false", p->build, p->refused ? "true" : "false") ||
          ks_json_append_string(buf, cap, &len, p->line) || ks_text_append(buf, cap, &len, ",\"log\":[");
    for (int n = 0; n < KS_PAGE_LOG_LINES && p->log[n][0]; ++n)
        bad = bad || (n && ks_text_append(buf, cap, &len, ",")) || ks_json_append_string(buf, cap, &len, p->log[n]);
    bad = bad || ks_text_append(buf, cap, &len, "],\"save_to_running_ms\":%.0f}", p->save_to_run_ms);
    pthread_mutex_unlock(&p->lock);
    return bad ? 0 : len;
}

/* The page's Compile: the file written as an editor saves it; its build follows from the watch. */
static unsigned submit(void *user, const char *src, size_t len, char *msg, size_t cap)
{
    ks_kernel_page *p = user;
    if (len == 0) {
        snprintf(msg, cap, "the source is empty");
        return 400;
    }
    const int building = busy(p);
    pthread_mutex_lock(&p->lock);
    if (building || pending(p)) {
        pthread_mutex_unlock(&p->lock);
        snprintf(msg, cap, "a build is on its way; Compile again when it is done");
        return 409;
    }
    const ks_status st = ks_text_write(p->d.path, src, len);
    if (st == KS_OK) p->pending_since = ks_now_seconds();
    pthread_mutex_unlock(&p->lock);
    if (st != KS_OK) {
        snprintf(msg, cap, "%s", ks_error_message());
        return 500;
    }
    return 0;
}

ks_status ks_kernel_page_create(const ks_kernel_page_desc *desc, ks_kernel_page **out)
{
    *out = NULL;
    if (!desc || !desc->path || !desc->path[0] || desc->pending_s < 0)
        return ks_fail(KS_ERR_INVALID, "the page's editor: no file to edit");
    ks_kernel_page *p = calloc(1, sizeof *p);
    if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    p->d = *desc;
    if (p->d.pending_s == 0) p->d.pending_s = 60.0; /* the first build of a run can take the checker's start */
    p->editor = (ks_server_editor){p, describe, submit};
    pthread_mutex_init(&p->lock, NULL);
    *out = p;
    return KS_OK;
}

void ks_kernel_page_destroy(ks_kernel_page *p)
{
    if (!p) return;
    pthread_mutex_destroy(&p->lock);
    free(p);
}

const ks_server_editor *ks_kernel_page_editor(ks_kernel_page *p) { return p ? &p->editor : NULL; }

void ks_kernel_page_publish(ks_kernel_page *p, long long build, int refused, const char *line,
                            const char (*log)[KS_VIEW_TEXT], int nlog, double save_to_run_ms)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->build = build;
    p->refused = refused != 0;
    snprintf(p->line, sizeof p->line, "%s", line ? line : "");
    memset(p->log, 0, sizeof p->log);
    for (int n = 0; log && n < nlog && n < KS_PAGE_LOG_LINES; ++n) snprintf(p->log[n], sizeof p->log[n], "%.*s", KS_VIEW_TEXT - 1, log[n]);
    p->save_to_run_ms = save_to_run_ms;
    p->pending_since = 0;
    pthread_mutex_unlock(&p->lock);
}
