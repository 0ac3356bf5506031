/* bench serve --browser: a headless Chromium on the page, in a process group
 * and a profile folder of its own (bench_serve_internal.h). */
/* POSIX: fork, kill, waitpid, nftw */
#define _XOPEN_SOURCE 700

#include "app/bench/bench_serve_internal.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

pid_t ks_serve_browser_start(const char *path, const char *url, const char *profile)
{
    char profile_arg[1100];
    snprintf(profile_arg, sizeof profile_arg, "--user-data-dir=%s", profile);
    char *const argv[] = {(char *)path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--autoplay-policy=no-user-gesture-required", profile_arg, "--remote-debugging-port=0",
                          (char *)url, NULL};
    /* its temporary files go into the profile folder too, which is removed afterwards */
    extern char **environ;
    int nenv = 0;
    while (environ[nenv]) ++nenv;
    char **envp = calloc((size_t)nenv + 2, sizeof *envp);
    if (!envp) return -1;
    char tmp_var[1100];
    snprintf(tmp_var, sizeof tmp_var, "TMPDIR=%s", profile);
    int k = 0;
    for (int i = 0; i < nenv; ++i)
        if (strncmp(environ[i], "TMPDIR=", 7) != 0) envp[k++] = environ[i];
    envp[k++] = tmp_var;
    envp[k] = NULL;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) { /* only async-signal-safe calls until exec */
        const int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
        }
        setpgid(0, 0); /* its own group: the browser's helpers end with it */
        execve(path, argv, envp);
        _exit(127);
    }
    free(envp);
    return pid;
}

void ks_serve_browser_stop(pid_t pid)
{
    if (pid <= 0) return;
    kill(-pid, SIGTERM);
    for (int i = 0; i < 100; ++i) { /* 5 s, then it is killed */
        if (waitpid(pid, NULL, WNOHANG) == pid) return;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

int ks_serve_browser_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}
