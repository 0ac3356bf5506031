#!/bin/sh
# A stand-in for compute-sanitizer (tests/test_kernel_checker.c): takes the
# options the checker passes (each with its value), needs --tool memcheck and
# --log-file, writes the tool's banner to the log, then runs the rest of its
# command line as the target, as a process of its own (the real tool's target
# is one too). The target finds the log's name in KS_FAKE_SANITIZER_LOG and
# leaves what the tool would report in that name plus ".report"; it reaches the
# log only once the target has ended, as the real tool's summary does. The
# target's exit status is this one's.
log= tool=
while [ $# -gt 0 ]; do
    case "$1" in
    --tool) tool=$2; shift 2 ;;
    --log-file) log=$2; shift 2 ;;
    --print-limit|--leak-check|--report-api-errors|--show-backtrace|--padding) shift 2 ;;
    --*) echo "fake compute-sanitizer: unknown option $1" >&2; exit 9 ;;
    *) break ;;
    esac
done
[ "$tool" = memcheck ] && [ -n "$log" ] && [ $# -gt 0 ] || { echo "fake compute-sanitizer: bad command line" >&2; exit 9; }
echo "========= COMPUTE-SANITIZER" >"$log" || exit 9
rm -f "$log.report"
KS_FAKE_SANITIZER_LOG=$log "$@"
status=$?
if [ -f "$log.report" ]; then cat "$log.report" >>"$log"; rm -f "$log.report"; fi
echo "========= ERROR SUMMARY: 0 errors" >>"$log"
exit $status
