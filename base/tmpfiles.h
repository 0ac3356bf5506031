/* Registry of the temporary files being written right now, so that a signal
 * handler can remove them before the process quits at once (second Ctrl-C).
 * Registration copies the name into a fixed slot (any thread may register);
 * ks_tmpfiles_unlink_all is async-signal-safe (lock-free atomics and unlink
 * only). Files register through out_file.h. */
#ifndef KS_TMPFILES_H
#define KS_TMPFILES_H

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_TMPFILES_MAX = 16, KS_TMPFILES_PATH = 1024 };

/* Returns a slot (>= 0), or -1 when the name is too long or every slot is taken
 * (the file is then written unregistered: only an immediate quit could leave it). */
int ks_tmpfiles_add(const char *path);
void ks_tmpfiles_remove(int slot);
/* Unlinks every registered file; safe inside a signal handler. */
void ks_tmpfiles_unlink_all(void);

#ifdef __cplusplus
}
#endif
#endif
