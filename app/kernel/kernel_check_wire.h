/* Internal to app/kernel/: the checker process's wire protocol (kernel_checker.h),
 * shared by the parent (kernel_checker.c) and the child (kernel_check_child.c).
 * Version 3, all lines ASCII and '\n'-terminated, numbers in decimal:
 *   child -> parent, once after warm():  "kscheck/3 ready"
 *   request:  "kscheck/3 SCENE GX GY GZ BX BY BZ ITERS CUBIN CODE_SIZE FILE_LEN DIFF AXIS INDEX CELLS_W CELLS_H",
 *             then FILE_LEN bytes of file name, then CODE_SIZE bytes of code;
 *             CELLS_W CELLS_H: the difference's own cells (0 0: the slice of AXIS and INDEX)
 *   answer:   "kscheck/3 PASSED FATAL CHILD_US DIFF_W DIFF_H MESSAGE", the message
 *             with '\' sent as "\\" and a newline as "\n", so any byte fits on
 *             the line; then DIFF_W * DIFF_H float32 values (this host's byte
 *             order: parent and child are one binary), the difference slice.
 *             DIFF_W = DIFF_H = 0: none. A slice is only sent when asked for
 *             (DIFF 1) and only of the size asked; the parent takes nothing
 *             else, and no value that is NaN or negative.
 * The time limit counts from the request, not from the child's start: a fresh
 * child's CUDA context is not charged to the check that follows a crash. */
#ifndef KS_KERNEL_CHECK_WIRE_H
#define KS_KERNEL_CHECK_WIRE_H

#include <stddef.h>

#include "app/kernel/kernel_checker.h"

#define KCHECK_MAGIC "kscheck/3"
enum {
    KCHECK_HEADER_MAX = 256,  /* a request's header line, '\n' included */
    KCHECK_LINE_MAX = 2 * KS_KCHECK_MSG_MAX + 96, /* an answer line: every message byte escaped */
};

/* 1 when s (n bytes) is a scene name the header line can carry as one token. */
int ks_kcheck_scene_ok(const char *s, size_t n);
/* A decimal number lo..hi, digits only (n bytes of s); 0, or -1. */
int ks_kcheck_parse_num(const char *s, size_t n, long long lo, long long hi, long long *v);
/* Strict parse of an answer line into out (the difference slice's size in
 * diff_w, diff_h; no values yet); 0, or -1 when malformed. */
int ks_kcheck_parse_answer(const char *line, ks_kcheck_result *out);

#endif
