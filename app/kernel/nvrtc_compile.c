/* NVRTC compiles a user's kernel source (nvrtc_compile.h). Plain C: NVRTC's
 * API is C, and nothing here touches a device. */
#include "nvrtc_compile.h"

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ks_nvrtc_built(void) { return 1; }

const char *ks_nvrtc_version_text(void)
{
    static char text[32];
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "NVRTC";
    snprintf(text, sizeof text, "NVRTC %d.%d", major, minor);
    return text;
}

static ks_status nvrtc_fail(nvrtcResult r, const char *call)
{
    return ks_fail(r == NVRTC_ERROR_OUT_OF_MEMORY ? KS_ERR_OUT_OF_MEMORY : KS_ERR_UNSUPPORTED, "NVRTC %s: %s",
                   call, nvrtcGetErrorString(r));
}

/* The log, its lines and the error count into r. */
static ks_status take_log(nvrtcProgram prog, const char *name, ks_nvrtc_result *r)
{
    size_t size = 0;
    nvrtcResult e = nvrtcGetProgramLogSize(prog, &size);
    if (e != NVRTC_SUCCESS) return nvrtc_fail(e, "nvrtcGetProgramLogSize");
    r->log = calloc(size + 1, 1);
    if (!r->log) return ks_fail(KS_ERR_OUT_OF_MEMORY, "NVRTC log: out of memory");
    if (size && (e = nvrtcGetProgramLog(prog, r->log)) != NVRTC_SUCCESS) return nvrtc_fail(e, "nvrtcGetProgramLog");
    r->lines = ks_nvrtc_log_lines(r->log, name, &r->errors);
    return r->lines ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "NVRTC log: out of memory");
}

static ks_status take_code(nvrtcProgram prog, ks_nvrtc_result *r)
{
    size_t size = 0;
    nvrtcResult e = r->cubin ? nvrtcGetCUBINSize(prog, &size) : nvrtcGetPTXSize(prog, &size);
    if (e != NVRTC_SUCCESS) return nvrtc_fail(e, r->cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize");
    r->code = malloc(size ? size : 1);
    if (!r->code) return ks_fail(KS_ERR_OUT_OF_MEMORY, "NVRTC code: out of memory");
    e = r->cubin ? nvrtcGetCUBIN(prog, r->code) : nvrtcGetPTX(prog, r->code);
    if (e != NVRTC_SUCCESS) return nvrtc_fail(e, r->cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX");
    r->code_size = size;
    return KS_OK;
}

ks_status ks_nvrtc_compile(const ks_nvrtc_desc *desc, ks_nvrtc_result *out)
{
    memset(out, 0, sizeof *out);
    const char *name = desc->name ? desc->name : "kernel.cu";
    out->cubin = desc->cubin;
    out->cc_major = desc->cc_major ? desc->cc_major : KS_NVRTC_DEFAULT_CC_MAJOR;
    out->cc_minor = desc->cc_major ? desc->cc_minor : KS_NVRTC_DEFAULT_CC_MINOR;
    if (!desc->source) return ks_fail(KS_ERR_INVALID, "NVRTC: no source");
    if (strlen(desc->source) > KS_NVRTC_SOURCE_MAX)
        return ks_fail(KS_ERR_INVALID, "%s: larger than %d KiB", KS_QUOTED(name), KS_NVRTC_SOURCE_MAX / 1024);

    char arch[32];
    snprintf(arch, sizeof arch, "--gpu-architecture=%s_%d%d", desc->cubin ? "sm" : "compute", out->cc_major,
             out->cc_minor);
    const char *opts[] = {arch, "-lineinfo", "-std=c++17"};
    nvrtcProgram prog;
    nvrtcResult e = nvrtcCreateProgram(&prog, desc->source, name, 0, NULL, NULL);
    if (e != NVRTC_SUCCESS) return nvrtc_fail(e, "nvrtcCreateProgram");
    const nvrtcResult compiled = nvrtcCompileProgram(prog, (int)(sizeof opts / sizeof opts[0]), opts);
    ks_status st = take_log(prog, name, out);
    if (st == KS_OK && compiled == NVRTC_SUCCESS) {
        st = take_code(prog, out);
    } else if (st == KS_OK && compiled == NVRTC_ERROR_INVALID_OPTION) {
        st = ks_fail(KS_ERR_UNSUPPORTED, "%s does not compile for %s_%d%d (%s)", ks_nvrtc_version_text(),
                     desc->cubin ? "sm" : "compute", out->cc_major, out->cc_minor, nvrtcGetErrorString(compiled));
    } else if (st == KS_OK) {
        const int n = out->errors > 0 ? out->errors : 1;
        st = ks_fail(KS_ERR_PARSE, "%s: %d %s", KS_QUOTED(name), n, n == 1 ? "error" : "errors");
    }
    nvrtcDestroyProgram(&prog);
    return st;
}

void ks_nvrtc_result_free(ks_nvrtc_result *r)
{
    free(r->code);
    free(r->log);
    free(r->lines);
    memset(r, 0, sizeof *r);
}
