/* --kernel-file: read and compile a user's kernel (app/user_kernel.h). */
#include "app/user_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/user/kernel_decl.h"

ks_status ks_user_kernel_read(const char *path, char **source)
{
    *source = NULL;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return ks_fail(errno == ENOENT || errno == ENOTDIR ? KS_ERR_INVALID : KS_ERR_IO, "--kernel-file: '%s': %s",
                       KS_QUOTED(path), strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s' is not a regular file", KS_QUOTED(path));
    }
    if (sb.st_size > KS_NVRTC_SOURCE_MAX) {
        close(fd);
        return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s' is larger than %d KiB", KS_QUOTED(path),
                       KS_NVRTC_SOURCE_MAX / 1024);
    }
    char *buf = malloc(KS_NVRTC_SOURCE_MAX + 2);
    if (!buf) {
        close(fd);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "--kernel-file: out of memory");
    }
    size_t len = 0; /* read to the end: the file may have grown since fstat */
    for (;;) {
        const ssize_t n = read(fd, buf + len, KS_NVRTC_SOURCE_MAX + 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            close(fd);
            free(buf);
            return ks_fail(KS_ERR_IO, "--kernel-file: cannot read '%s': %s", KS_QUOTED(path), strerror(e));
        }
        len += (size_t)n;
        if (n == 0 || len > KS_NVRTC_SOURCE_MAX) break;
    }
    close(fd);
    if (len > KS_NVRTC_SOURCE_MAX) {
        free(buf);
        return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s' is larger than %d KiB", KS_QUOTED(path),
                       KS_NVRTC_SOURCE_MAX / 1024);
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        free(buf);
        return ks_fail(KS_ERR_INVALID, "--kernel-file: '%s' holds a NUL byte; it is not CUDA source",
                       KS_QUOTED(path));
    }
    *source = buf;
    return KS_OK;
}

ks_status ks_user_kernel_declare(const char *path, char **source)
{
    ks_kdecl d;
    KS_TRY(ks_kdecl_parse(*source, path, &d));
    if (!d.present) return KS_OK;
    char *suffix = ks_kdecl_suffix(&d);
    const size_t had = strlen(*source);
    char *joined = suffix ? realloc(*source, had + strlen(suffix) + 1) : NULL;
    if (!joined) {
        free(suffix);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "--kernel-file: out of memory reading '%s'", KS_QUOTED(path));
    }
    memcpy(joined + had, suffix, strlen(suffix) + 1);
    free(suffix);
    *source = joined;
    return KS_OK;
}

ks_status ks_user_kernel_compile(const char *path, const ks_device_info *device, ks_nvrtc_result *out)
{
    memset(out, 0, sizeof *out);
    char *source;
    KS_TRY(ks_user_kernel_read(path, &source));
    const ks_status declared = ks_user_kernel_declare(path, &source);
    if (declared != KS_OK) {
        free(source);
        return declared;
    }
    const ks_nvrtc_desc desc = {
        .source = source,
        .name = path,
        .cc_major = device && device->present ? device->cc_major : 0,
        .cc_minor = device && device->present ? device->cc_minor : 0,
        .cubin = device && device->present,
    };
    const ks_status st = ks_nvrtc_compile(&desc, out);
    free(source);
    return st;
}
