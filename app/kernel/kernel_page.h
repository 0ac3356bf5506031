/* The browser page's editor of a kernel file (--edit): what the page is told
 * of the file and its builds, and the page's Compile, which writes the file
 * the way an editor saves it (a new file beside it, then a rename), so that
 * the file's watch builds it like any save. One per run, for the first
 * --kernel-file; the scenes' kernel-file glue keeps it and tells it of each
 * build of that file. Describe and submit run on the server's thread. */
#ifndef KS_KERNEL_PAGE_H
#define KS_KERNEL_PAGE_H

#include "render/view.h"
#include "serve/server.h"

typedef struct ks_kernel_page_desc {
    const char *path;          /* the file the page edits (kept, not copied) */
    /* 1 while a build of some file runs (a Compile then waits for it); NULL: never */
    int (*busy)(void *user);
    void *user;
    double pending_s;          /* how long a Compile may wait for its build before the page
                                  may send another; 0: 60 s */
} ks_kernel_page_desc;

typedef struct ks_kernel_page ks_kernel_page;

ks_status ks_kernel_page_create(const ks_kernel_page_desc *desc, ks_kernel_page **out);
void ks_kernel_page_destroy(ks_kernel_page *p);
/* The server's hooks; valid until destroy. */
const ks_server_editor *ks_kernel_page_editor(ks_kernel_page *p);
/* A build of the file ended: its number, whether it was refused, its one-line
 * summary, its first log lines (nlog of them, as the panel keeps them; an empty
 * one ends them) and, for one that runs, the save-to-running time. A Compile
 * waiting for it is done. */
void ks_kernel_page_publish(ks_kernel_page *p, long long build, int refused, const char *line,
                            const char (*log)[KS_VIEW_TEXT], int nlog, double save_to_run_ms);

#endif
