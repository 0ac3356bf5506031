/* An output file written whole or not at all, and never through a name someone
 * else planted: every file kernelscope writes (pictures, fields, CSVs, videos,
 * the editor's save, new-kernel's starter, the best-config store) goes through
 * here.
 *
 * The data goes to a temporary beside the target, "<path>.tmp-XXXXXX" with six
 * random characters, created with O_CREAT | O_EXCL | O_NOFOLLOW: a symlink or
 * file planted at any name makes the create fail and another name is drawn,
 * so nothing is ever written through a link. The name is registered with
 * tmpfiles.h before the file exists, so a second Ctrl-C removes it. Commit
 * renames it over the target (or links it, never replacing one, with
 * no_clobber); abort removes it.
 *
 * Mode: a file that replaces an existing one takes that file's permission bits
 * (a private 0600 kernel stays 0600); a new one gets 0666 less the umask.
 * A file that replaces another is fsynced before the rename, so a crash leaves
 * the old or the new contents, never an empty file. */
#ifndef KS_OUT_FILE_H
#define KS_OUT_FILE_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_out_file ks_out_file;

typedef struct ks_out_file_desc {
    const char *path; /* the target; the temporary goes into its folder */
    int no_clobber;   /* commit fails (KS_ERR_INVALID, "exists") when the target exists, which stays as it is */
    int sync;         /* fsync a new file before commit too (a replaced one always is) */
} ks_out_file_desc;

/* Creates the temporary. Fails with KS_ERR_IO "cannot write 'PATH': why". */
ks_status ks_out_file_open(const ks_out_file_desc *desc, ks_out_file **out);
/* The open descriptor (O_WRONLY, O_CLOEXEC), for writers that seek (the recorder). */
int ks_out_file_fd(const ks_out_file *f);
const char *ks_out_file_path(const ks_out_file *f);     /* the target */
const char *ks_out_file_tmp_name(const ks_out_file *f); /* the temporary */
/* Writes all of data (retrying short writes). After the first failure every
 * write fails, and so does commit. */
ks_status ks_out_file_write(ks_out_file *f, const void *data, size_t len);
/* The errno value of the first failed write; 0 while none failed. */
int ks_out_file_error(const ks_out_file *f);
/* Marks the file failed with errno value err (a writer's own failure, e.g. an
 * encoder's): commit then removes it and fails. */
void ks_out_file_set_error(ks_out_file *f, int err);
/* Closes the temporary and puts it in place; frees f. On failure the
 * temporary is removed. NULL is fine. */
ks_status ks_out_file_commit(ks_out_file *f);
/* Closes and removes the temporary; frees f. NULL is fine. */
void ks_out_file_abort(ks_out_file *f);

/* Whether a file could be written at path: a temporary is made beside it and
 * removed at once. A real try, since access() says yes to root where no file
 * can be made (sysfs). Nothing is left behind. 0, or why not as an errno value
 * (the caller words the message). */
int ks_out_file_probe(const char *path);

#ifdef __cplusplus
}
#endif
#endif
