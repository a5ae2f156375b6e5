/* hostexec.h: running a command on the host, with the user's own rights:
 * for unsandboxed sessions (profile "none") and approved runs outside.
 *
 * A run outside is fixed when it is asked for, so that what the person
 * approves is what runs: the program is resolved to an absolute host path
 * with the host's PATH (never the request's) and executed by that path; the
 * folder is opened then, without following symlinks, held as a descriptor
 * and entered with fchdir. */
#ifndef SBOX_HOSTEXEC_H
#define SBOX_HOSTEXEC_H

#include <sys/stat.h>
#include <sys/types.h>

#include "protocol/error.h"

/* Called once when the command has exited (code, or sig > 0). */
typedef void (*hostexec_exit_cb)(pid_t pid, int code, int sig, void *arg);

/* What an approved run outside executes, fixed when it was asked for. */
struct hostexec_target {
	char   *program;  /* absolute host path, executed as is (execve) */
	dev_t   dev;      /* the program's device and inode when resolved: */
	ino_t   ino;      /* a different file there is not run */
	int     dir_fd;   /* the folder (O_PATH|O_DIRECTORY), entered by fchdir */
	char   *dir;      /* the path that folder resolved to (shown) */
	char  **env;      /* the whole environment (hostenv_build) */
	mode_t  umask;    /* the asker's */
};

/* Fork and exec argv (searched in env's PATH) in its own session and process
 * group, with fds[0..2] as stdio (-1: /dev/null) and cwd. */
int hostexec_spawn(char *const *argv, char *const *env, const char *cwd,
    const int fds[3], hostexec_exit_cb cb, void *arg, pid_t *pid_out,
    sbox_error *err);
/* Fork and exec t->program with argv and t->env, in the folder t->dir_fd,
 * as hostexec_spawn; the program is checked to be the file resolved. */
int hostexec_spawn_target(const struct hostexec_target *t, char *const *argv,
    const int fds[3], hostexec_exit_cb cb, void *arg, pid_t *pid_out,
    sbox_error *err);
/* Stop calling back for pid (its owner went away); it is still reaped. */
void hostexec_forget(pid_t pid);

/* The host's PATH: sboxd's own, or a default when it has none. */
const char *hostexec_host_path(void);
/* Tests only: nonzero makes hostexec_open_dir walk with O_NOFOLLOW as on
 * a kernel without openat2. */
extern int hostexec_force_walk;
/* Open the folder path (absolute) as O_PATH|O_DIRECTORY without following
 * any symlink (openat2 RESOLVE_NO_SYMLINKS, else a walk with O_NOFOLLOW);
 * *shown gets the path the descriptor resolved to (malloc'd). Returns the
 * descriptor (O_CLOEXEC) or -1 with err. */
int hostexec_open_dir(const char *path, char **shown, sbox_error *err);
/* Resolve a program name to the absolute path of an executable regular
 * file, symlinks resolved: a name with a '/' relative to the folder dir_fd
 * (or absolute), a bare name searched in path_env (the host's PATH; empty
 * and relative entries skipped). *st gets the file's status. malloc'd, or
 * NULL with E_INVALID_PARAMS (field "argv"). */
char *hostexec_resolve(const char *name, const char *path_env, int dir_fd,
    struct stat *st, sbox_error *err);
/* Free what a target holds (closes its folder) and clear it. */
void hostexec_target_clear(struct hostexec_target *t);

#endif
