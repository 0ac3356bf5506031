/* Internal to app/kernel/: what the checker (kernel_checker.c) needs to run a
 * check under compute-sanitizer memcheck: the tool's command line, the private
 * folder of its report and the report's new text (kernel_check_sanitizer.c).
 * Finding the tool is public: ks_kcheck_find_sanitizer (kernel_checker.h). */
#ifndef KS_KERNEL_CHECK_SANITIZER_H
#define KS_KERNEL_CHECK_SANITIZER_H

#include <stddef.h>

enum { KCHECK_REPORT_MAX = 1 << 20 }; /* report bytes read per check: its first error is near the start */

/* A private folder (mode 0700, under $TMPDIR or /tmp) into dir, and the
 * report's path in it into log. 0, or an errno. */
int ks_kcheck_report_dir(char *dir, size_t dir_cap, char *log, size_t log_cap);
/* The folder and what the tool left in it, removed ("" : none). */
void ks_kcheck_report_dir_remove(const char *dir);
/* The report's size now (0 when the tool has not made it yet). */
long long ks_kcheck_report_size(const char *log);
/* The report's text from offset on (at most KCHECK_REPORT_MAX bytes),
 * malloc'd and NUL-terminated; NULL when there is none. */
char *ks_kcheck_report_read(const char *log, long long offset);
/* The tool's command line around the child's (argv, NULL-terminated): its
 * options, then argv; each string malloc'd (ks_kcheck_argv_free). NULL when
 * out of memory. */
char **ks_kcheck_memcheck_argv(const char *tool, const char *log, char *const *argv);
void ks_kcheck_argv_free(char **argv);

#endif
