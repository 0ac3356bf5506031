/* SIGINT / SIGTERM: the first asks the run to stop after the frame (or bench
 * row) in progress, so every output is completed; a second SIGINT (or SIGTERM)
 * removes the temporary files being written and quits at once. */
#ifndef KS_SIGNALS_H
#define KS_SIGNALS_H

void ks_signals_install(void);
/* The signal that asked to stop (SIGINT, SIGTERM), or 0. */
int ks_signals_stop_requested(void);
/* 128 + that signal (130, 143), or 0 when none came. */
int ks_signals_exit_code(void);

#endif
