/* Output files through an exclusive, unpredictable temporary (out_file.h). */
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/tmpfiles.h"

enum {
    KS_OUT_FILE_SUFFIX = 6, /* random characters: 62^6 names, each tried with O_EXCL */
    KS_OUT_FILE_TRIES = 100 /* names drawn before giving up (only a flood of planted names gets here) */
};

struct ks_out_file {
    char *path;   /* the target (a copy) */
    char *tmp;    /* "<path>.tmp-XXXXXX" */
    int fd;       /* -1 once closed */
    int slot;     /* ks_tmpfiles slot of tmp, -1 when none */
    int err;      /* first errno of a failed write; 0 while fine */
    int replaces; /* the target existed as a regular file at open: keep its mode, fsync */
    int no_clobber, sync;
};

/* Six characters from [A-Za-z0-9]: the kernel's random bytes, or where they
 * cannot be had a mix of the clock, the pid and a counter (still checked by
 * O_EXCL; only the unpredictability is weaker). */
static void random_suffix(char out[KS_OUT_FILE_SUFFIX + 1])
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static atomic_ulong counter;
    unsigned char bytes[KS_OUT_FILE_SUFFIX];
    if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != (ssize_t)sizeof bytes) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 30) ^
                               ((unsigned long long)getpid() << 40) ^ atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull; /* splitmix64's finaliser */
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        for (int i = 0; i < KS_OUT_FILE_SUFFIX; ++i) bytes[i] = (unsigned char)(x >> (8 * i));
    }
    for (int i = 0; i < KS_OUT_FILE_SUFFIX; ++i) out[i] = chars[bytes[i] % (sizeof chars - 1)];
    out[KS_OUT_FILE_SUFFIX] = '\0';
}

/* Bytes of "<path>.tmp-XXXXXX" with its NUL. */
static size_t tmp_name_size(const char *path)
{
    return strlen(path) + sizeof ".tmp-" + KS_OUT_FILE_SUFFIX;
}

/* Creates "<path>.tmp-XXXXXX" (tmp: tmp_name_size bytes) exclusively, never
 * through a link, drawing another name while one is taken. The name is
 * registered for the signal handler before the file exists (*slot; -1 when
 * the registry is full). 0 and *fd, or an errno value. */
static int create_beside(const char *path, char *tmp, mode_t mode, int *fd, int *slot)
{
    int e = EEXIST;
    for (int t = 0; t < KS_OUT_FILE_TRIES && e == EEXIST; ++t) {
        char suffix[KS_OUT_FILE_SUFFIX + 1];
        random_suffix(suffix);
        snprintf(tmp, tmp_name_size(path), "%s.tmp-%s", path, suffix);
        *slot = ks_tmpfiles_add(tmp); /* before it exists: a quit in between unlinks nothing of ours */
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        e = *fd < 0 ? errno : 0;
        if (e != 0) {
            ks_tmpfiles_remove(*slot);
            *slot = -1;
        }
    }
    return e;
}

static void out_file_free(ks_out_file *f)
{
    ks_tmpfiles_remove(f->slot);
    free(f->path);
    free(f->tmp);
    free(f);
}

ks_status ks_out_file_open(const ks_out_file_desc *d, ks_out_file **out)
{
    *out = NULL;
    if (!d || !d->path || !d->path[0]) return ks_fail(KS_ERR_INVALID, "empty output path");
    const size_t n = strlen(d->path);
    ks_out_file *f = calloc(1, sizeof *f);
    if (f) f->path = malloc(n + 1);
    if (f && f->path) f->tmp = malloc(tmp_name_size(d->path));
    if (!f || !f->path || !f->tmp) {
        if (f) {
            free(f->path);
            free(f);
        }
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", KS_QUOTED(d->path));
    }
    memcpy(f->path, d->path, n + 1);
    f->fd = -1;
    f->slot = -1;
    f->no_clobber = d->no_clobber;
    f->sync = d->sync;
    struct stat sb;
    mode_t keep = 0;
    if (!d->no_clobber && stat(d->path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        f->replaces = 1;
        keep = sb.st_mode & 0777;
    }
    /* a replacement starts private and takes the target's bits below; a new file gets the umask's */
    const int e = create_beside(d->path, f->tmp, f->replaces ? 0600 : 0666, &f->fd, &f->slot);
    if (e != 0) {
        const ks_status st = ks_fail(KS_ERR_IO, "cannot write '%s': %s", KS_QUOTED(d->path), strerror(e));
        out_file_free(f);
        return st;
    }
    if (f->replaces && fchmod(f->fd, keep) != 0) {
        const int fe = errno;
        ks_out_file_abort(f);
        return ks_fail(KS_ERR_IO, "cannot write '%s': %s", KS_QUOTED(d->path), strerror(fe));
    }
    *out = f;
    return KS_OK;
}

int ks_out_file_fd(const ks_out_file *f) { return f->fd; }
const char *ks_out_file_path(const ks_out_file *f) { return f->path; }
const char *ks_out_file_tmp_name(const ks_out_file *f) { return f->tmp; }

int ks_out_file_error(const ks_out_file *f) { return f->err; }

void ks_out_file_set_error(ks_out_file *f, int err)
{
    if (f->err == 0) f->err = err != 0 ? err : EIO;
}

ks_status ks_out_file_write(ks_out_file *f, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (f->err == 0 && len > 0) {
        const ssize_t w = write(f->fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            ks_out_file_set_error(f, w < 0 ? errno : EIO);
            break;
        }
        p += w;
        len -= (size_t)w;
    }
    if (f->err != 0) return ks_fail(KS_ERR_IO, "cannot write '%s': %s", KS_QUOTED(f->path), strerror(f->err));
    return KS_OK;
}

/* fsyncs the folder of path, so that the rename itself survives a crash; best effort. */
static void sync_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) return;
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        if (fsync(fd) != 0) { /* the file itself is synced; nothing more to do */ }
        close(fd);
    }
    free(dir);
}

/* Puts the closed temporary in place: a rename, or for no_clobber a link that
 * fails when the target exists. Returns 0 or an errno value. */
static int put_in_place(ks_out_file *f)
{
    if (!f->no_clobber) return rename(f->tmp, f->path) != 0 ? errno : 0;
    int e = link(f->tmp, f->path) != 0 ? errno : 0;
    if (e == EPERM || e == ENOSYS || e == EOPNOTSUPP) { /* no hard links on this file system */
        struct stat sb;
        e = lstat(f->path, &sb) == 0 ? EEXIST : rename(f->tmp, f->path) != 0 ? errno : 0;
    }
    if (e == 0) unlink(f->tmp); /* linked: the temporary name goes (after a rename it is gone already) */
    return e;
}

ks_status ks_out_file_commit(ks_out_file *f)
{
    if (!f) return KS_OK;
    int e = f->err;
    const int sync = f->sync || f->replaces;
    if (e == 0 && sync && fsync(f->fd) != 0) e = errno;
    /* close can be where a full disk shows up (NFS, delayed allocation) */
    if (close(f->fd) != 0 && e == 0) e = errno;
    f->fd = -1;
    if (e == 0) e = put_in_place(f);
    if (e != 0) {
        unlink(f->tmp);
        const ks_status st = e == EEXIST && f->no_clobber
                                 ? ks_fail(KS_ERR_INVALID, "'%s' exists", KS_QUOTED(f->path))
                                 : ks_fail(KS_ERR_IO, "cannot write '%s': %s", KS_QUOTED(f->path), strerror(e));
        out_file_free(f);
        return st;
    }
    if (sync) sync_folder(f->path);
    out_file_free(f);
    return KS_OK;
}

void ks_out_file_abort(ks_out_file *f)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    unlink(f->tmp);
    out_file_free(f);
}

int ks_out_file_probe(const char *path)
{
    if (!path || !path[0]) return ENOENT;
    char *tmp = malloc(tmp_name_size(path));
    if (!tmp) return ENOMEM;
    int fd = -1, slot = -1;
    const int e = create_beside(path, tmp, 0600, &fd, &slot);
    if (e == 0) {
        close(fd);
        unlink(tmp);
        ks_tmpfiles_remove(slot);
    }
    free(tmp);
    return e;
}
