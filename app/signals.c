#include "app/signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/tmpfiles.h"

static volatile sig_atomic_t ks_stop_signal;
static int ks_stderr_tty; /* 1: stderr is a terminal, where Ctrl-C leaves "^C" on the line */

/* The leading newline ends the terminal's "^C" echo; anywhere else (a pipe,
 * a file, SIGTERM from a script) it would be a blank line. */
static void say(const char *msg, size_t len, int sig)
{
    const size_t skip = ks_stderr_tty && sig == SIGINT ? 0 : 1;
    if (write(STDERR_FILENO, msg + skip, len - skip) < 0) { /* nothing more to do */ }
}

static void on_signal(int sig)
{
    if (ks_stop_signal) {
        /* asked twice: leave no temporary file behind, quit now */
        ks_tmpfiles_unlink_all();
        static const char msg[] = "\nkernelscope: stopped at once\n";
        say(msg, sizeof msg - 1, sig);
        _exit(128 + sig);
    }
    ks_stop_signal = sig;
    /* in the words of what came: a script's SIGTERM is no Ctrl-C, and its second one quits too */
    static const char by_key[] = "\nkernelscope: stopping once this frame (or bench row) is done; Ctrl-C again quits now\n";
    static const char by_term[] =
        "\nkernelscope: SIGTERM: stopping once this frame (or bench row) is done; a second SIGTERM quits now\n";
    if (sig == SIGINT) say(by_key, sizeof by_key - 1, sig);
    else say(by_term, sizeof by_term - 1, sig);
}

void ks_signals_install(void)
{
    ks_stderr_tty = isatty(STDERR_FILENO);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: the first signal ends a blocking wait (a read from a pipe, a sleep) with EINTR, and the
     * loop looks at the flag; writes to regular files are not interrupted by signals on Linux */
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int ks_signals_stop_requested(void)
{
    return (int)ks_stop_signal;
}

int ks_signals_exit_code(void)
{
    return ks_stop_signal ? 128 + (int)ks_stop_signal : 0;
}
