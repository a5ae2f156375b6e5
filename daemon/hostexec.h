/* hostexec.h: running a command on the host, with the user's own rights:
 * for unsandboxed sessions (profile "none") and approved runs outside. */
#ifndef SBOX_HOSTEXEC_H
#define SBOX_HOSTEXEC_H

#include <sys/types.h>
#include "protocol/error.h"

/* Called once when the command has exited (code, or sig > 0). */
typedef void (*hostexec_exit_cb)(pid_t pid, int code, int sig, void *arg);

/* Fork and exec argv (searched in env's PATH) in its own session and process
 * group, with fds[0..2] as stdio (-1: /dev/null) and cwd. */
int hostexec_spawn(char *const *argv, char *const *env, const char *cwd,
    const int fds[3], hostexec_exit_cb cb, void *arg, pid_t *pid_out,
    sbox_error *err);
/* Stop calling back for pid (its owner went away); it is still reaped. */
void hostexec_forget(pid_t pid);

#endif
