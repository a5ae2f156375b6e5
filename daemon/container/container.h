/* container.h: a session's sandbox on Linux: one long-lived bwrap running
 * sbox-init, driven over the control socket (ctl.h) from the event loop.
 *
 * Life cycle
 *   container_start() renders the plan (render-bwrap, render-seccomp),
 *   holds every bind as a descriptor (container-bind.c), spawns bwrap with an
 *   empty environment and its arguments in a memfd (--args), and returns at
 *   once. o->on_ready fires exactly once: with err == NULL when sbox-init sent
 *   `ready` (the proxy's listening sockets are then available), or with the
 *   reason it could not start (bwrap missing, user namespaces refused, a
 *   mount failing: the message says what is missing and how to fix it).
 *   After ready, o->on_dead fires if the container ends by itself.
 *   The caller owns the container until container_close(); that is also the
 *   only way to free it, after a failure too. Callbacks may call any function
 *   here, container_close() included (the memory is released later, from
 *   the event loop).
 *
 * Commands
 *   container_spawn() starts a command inside (one message, one fork/exec in
 *   sbox-init). Each command ends with exactly one final callback: on_spawned
 *   with an error (it could not start: no on_exit follows), or on_exit.
 *   on_spawned without error comes first when it started. When the container
 *   ends, running commands get on_exit with sig = SIGKILL.
 *
 * Files
 *   container_open/mkdir/stat run inside the sandbox (its mounts, uid and
 *   seccomp), so they obey exactly what a command would. Each request ends
 *   with one callback; when the container ends they fail with
 *   E_SESSION_CLOSED.
 *
 * Missing protected paths
 *   Nothing is made on the host for them: the file guard in sbox-init keeps
 *   them uncreatable (container-guard.c sends it the plan's guard spec).
 *
 * Limits: a cgroup per container where one can be had (a delegated v2
 *   cgroup when unprivileged, v1/v2 pids as root: container-cgroup.c); every
 *   command gets rlimits from the plan too: RLIMIT_NPROC = limits.pids (counted
 *   per user namespace on Linux >= 5.14, so per sandbox), RLIMIT_AS =
 *   limits.memory_bytes (per process), RLIMIT_FSIZE, RLIMIT_NOFILE and
 *   RLIMIT_CORE = 0; /tmp's size is the plan's tmpfs size.
 *
 * Fork container_start() from the main thread only: bwrap --die-with-parent
 * is tied to the thread that forked it.
 */
#ifndef SBOX_CONTAINER_H
#define SBOX_CONTAINER_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>
#include "policy/plan.h"
#include "protocol/error.h"

struct event_base;
struct container;

typedef void (*container_ready_cb)(struct container *c, const sbox_error *err,
    void *arg);
typedef void (*container_dead_cb)(struct container *c, const sbox_error *why,
    void *arg);
typedef void (*container_closed_cb)(struct container *c, void *arg);
/* The file guard refused an operation of a command: what sbox-init said,
 * validated, but from inside the sandbox. */
struct container_refusal {
	uint64_t    id;       /* the command (its spawn id) */
	pid_t       pid;      /* its process, inside the sandbox */
	const char *process;  /* that process's name (comm; "" unknown) */
	const char *op;       /* "read" | "create" | "write" | "rename" |
	                         "link" | "chmod" */
	const char *path;     /* absolute, as the sandbox sees it */
	int         errnum;   /* the errno answered (0: a read that opened a
	                         hidden stand-in) */
	const char *rule;     /* the guard's rule; "" when the kernel refused
	                         a write (a read-only mount): the caller
	                         explains it; for a read, sbox-init's claim:
	                         the caller explains it again */
	const char *reason;
	int         hidden;   /* a hidden path refused it (a read, or the
	                         source of a rename or link): the caller
	                         checks that the plan hides it and the host
	                         has it */
	char      **tell;     /* out: NULL, or where the callee puts the
	                         words (malloc'd, ending in a line break) that
	                         sbox-init writes to the refused process's
	                         own stderr */
};
typedef void (*container_refused_cb)(struct container *c,
    const struct container_refusal *r, void *arg);

/* A program started inside that matches the profile's `exclude` patterns
 * (read by sbox-init at its execve; comes from inside the sandbox, checked
 * for shape only) asks to run outside: argv, the file, the folder it was
 * started in (inside), the pattern, and the process's stdin, stdout and
 * stderr (the callee takes them: sets them to -1). cancel: the program is
 * gone before the answer (only xid is set). Answer with
 * container_exclude_done. */
struct container_exclude {
	uint64_t    id;        /* the command that started it */
	long long   xid;
	pid_t       pid;
	json_t     *argv;
	const char *program, *cwd, *pattern;  /* program: its real path */
	unsigned long long dev, ino;          /* the program's (0: unknown) */
	int         umask;                    /* the caller's */
	int         fds[3];
	int         cancel;
};
typedef void (*container_exclude_cb)(struct container *c,
    struct container_exclude *x, void *arg);

struct container_opts {
	struct event_base *base;
	const char        *bwrap_path;      /* NULL: look for "bwrap" in PATH */
	const char        *init_path;       /* the sbox-init binary (required) */
	const char        *hide_file_src;   /* NULL: /dev/null */
	int                proxy_port;      /* 0: RENDER_BWRAP_PROXY_PORT */
	int                start_timeout_ms;/* 0: 10000 */
	int                drop_ids;        /* sboxd is root: bwrap runs as
	                                       run_uid/run_gid, never host uid 0 */
	uid_t              run_uid;
	gid_t              run_gid;
	const char        *held_path;       /* a bind source held since it was */
	int                held_fd;         /* checked (the project); used when
	                                       held_path is set */
	container_ready_cb on_ready;
	container_dead_cb  on_dead;         /* may be NULL */
	container_refused_cb on_refused;    /* may be NULL */
	container_exclude_cb on_exclude;    /* may be NULL: then refused */
	void              *arg;
};

/* Start a container for plan p (see above). NULL with err when it cannot
 * even be tried (bwrap missing: E_SANDBOX_UNAVAILABLE, plan not renderable,
 * a folder that cannot be held: E_SANDBOX_SETUP). */
struct container *container_start(const struct plan *p,
    const struct container_opts *o, sbox_error *err);
/* Close: ask sbox-init to end everything, SIGKILL bwrap after ~1 s, reap it,
 * then cb(c, arg) (may be NULL) and free c. */
void container_close(struct container *c, container_closed_cb cb, void *arg);
/* Close at once and synchronously: SIGKILL, wait, clean up, free. No
 * callback runs. For daemon shutdown. */
void container_destroy(struct container *c);

/* True once ready and until it ends or is closed. */
int container_is_ready(const struct container *c);
/* The bwrap process (outside the sandbox). */
pid_t container_pid(const struct container *c);
/* The proxy port inside (same number on 127.0.0.1 and ::1). */
int container_proxy_port(const struct container *c);
/* The proxy's listening sockets from `ready`: fds[i] (family "inet" or
 * "inet6" in fam[i]); returns how many (0..2). The container keeps them
 * until container_take_proxy_fds() hands them over (then the caller closes). */
int container_proxy_fds(const struct container *c, int fds[2],
    const char *fam[2]);
int container_take_proxy_fds(struct container *c, int fds[2],
    const char *fam[2]);
/* The tail of bwrap's stderr (for logs), never NULL. */
const char *container_stderr(const struct container *c);
/* Milliseconds from container_start() to ready (0 before). */
long long container_start_ms(const struct container *c);

/* A command to run inside. */
typedef void (*container_spawned_cb)(struct container *c, uint64_t id,
    pid_t pid, const sbox_error *err, void *arg);
typedef void (*container_exit_cb)(struct container *c, uint64_t id, int code,
    int sig, int timed_out, void *arg);
/* A command's terminal: the master of the pty sbox-init made in the
 * container's devpts (checked to be one; non-blocking, close-on-exec; the
 * callee owns it). Comes just before on_spawned without error. */
typedef void (*container_tty_cb)(struct container *c, uint64_t id,
    int master, void *arg);

struct container_cmd {
	char *const         *argv;       /* argv[0] searched in env's PATH */
	char *const         *env;        /* NAME=VALUE, NULL-terminated */
	const char          *cwd;        /* NULL: the plan's cwd */
	int                  fds[3];     /* stdin, stdout, stderr; all -1 = none.
	                                    Sent as copies: the caller keeps and
	                                    closes its own. */
	uint64_t             timeout_ms; /* 0: none (the plan's default is the
	                                    caller's to apply) */
	int                  kill_group; /* SIGKILL the process group when the
	                                    command's first process exits */
	int                  has_channel;/* pass channel_fd as the command's fd 3
	                                    (needs the three stdio fds) */
	int                  channel_fd;
	unsigned short       tty_rows;   /* both nonzero: run it on a terminal */
	unsigned short       tty_cols;   /* of the sandbox (fds all -1) */
	container_tty_cb     on_tty;     /* gets the terminal's master */
	container_spawned_cb on_spawned; /* may be NULL */
	container_exit_cb    on_exit;
	void                *arg;
};

/* Start a command; *id_out names it for container_kill. -1 with err if the
 * container is not ready or the message cannot be sent. */
int container_spawn(struct container *c, const struct container_cmd *cmd,
    uint64_t *id_out, sbox_error *err);
/* Signal a command's whole process group. */
int container_kill(struct container *c, uint64_t id, int sig,
    sbox_error *err);
/* Send paths the file guard keeps read-only and missing-proof from now on
 * (the git config named them since the container started): sbox-init adds
 * them to its spec's protected paths before it reads the next message.
 * 0, or -1 with err when the container is not guarded or the list cannot
 * be sent. */
int container_guard_protect(struct container *c, char *const *paths,
    sbox_error *err);
/* Forget a command's callbacks (e.g. its owner went away); it keeps running. */
void container_forget(struct container *c, uint64_t id);
/* Tell sbox-init how an exclusion ended: the exit status the program's
 * process ends with, and a line for its stderr (NULL: none). */
void container_exclude_done(struct container *c, long long xid, int code,
    const char *message);

/* File operations inside. */
enum container_open_flags {
	CONTAINER_O_READ     = 1 << 0,
	CONTAINER_O_WRITE    = 1 << 1,
	CONTAINER_O_CREATE   = 1 << 2,
	CONTAINER_O_EXCL     = 1 << 3,
	CONTAINER_O_TRUNC    = 1 << 4,
	CONTAINER_O_APPEND   = 1 << 5,
	CONTAINER_O_DIR      = 1 << 6,
	CONTAINER_O_NOFOLLOW = 1 << 7,
	CONTAINER_O_PATH     = 1 << 8,
};
/* fd >= 0 (the caller owns it; O_NONBLOCK and close-on-exec are set) or err
 * (name E_NOT_FOUND for ENOENT, E_PERMISSION for EACCES/EPERM/EROFS, else
 * E_IO; err->message carries strerror). errnum is the errno inside. */
typedef void (*container_open_cb)(struct container *c, int fd, int errnum,
    const sbox_error *err, void *arg);
typedef void (*container_done_cb)(struct container *c, json_t *result,
    int errnum, const sbox_error *err, void *arg);
typedef void (*container_listen_cb)(struct container *c, const int *fds,
    int nfds, const sbox_error *err, void *arg);

int container_open(struct container *c, const char *path, unsigned flags,
    mode_t mode, container_open_cb cb, void *arg, sbox_error *err);
/* result NULL on success. */
int container_mkdir(struct container *c, const char *path, mode_t mode,
    container_done_cb cb, void *arg, sbox_error *err);
/* result: {type, size, mode, uid, gid, mtime, mtime_ns, nlink, ino, dev}
 * (borrowed for the callback's duration). */
int container_stat(struct container *c, const char *path, int nofollow,
    container_done_cb cb, void *arg, sbox_error *err);
/* Listening sockets on port inside (127.0.0.1 and ::1), for local_ports;
 * the callback owns fds. */
int container_listen_local(struct container *c, int port,
    container_listen_cb cb, void *arg, sbox_error *err);

/* Remove the placeholders an earlier version of sboxd listed in a crash
 * note ([{root, path}]):
 * each only while it is still an empty file or folder. */
void container_placeholders_remove(json_t *list);

/* Turn bwrap's stderr into an error that says what is missing and how to
 * fix it (container-explain.c). status is bwrap's wait status. */
void container_explain(const char *bwrap_stderr, int status, sbox_error *err);

/* At start: remove the cgroups earlier sboxd processes left, and take a
 * delegated cgroup v2 when sboxd runs unprivileged (container-cgroup.c). */
void container_cgroup_start(struct event_base *base);
/* Stop retrying cgroup removals (shutdown). */
void container_cgroup_stop(void);
/* sboxd's shutdown: the waiting spare launcher ends with its cgroups, then
 * container_cgroup_stop (container-start.c). */
void container_start_shutdown(void);
/* First in sboxd's main: run as the spare launcher sboxd started (its
 * binary again, container-spare.c); returns when this process is not one. */
void container_spare_child(void);
/* How sandboxes' memory and processes are bounded here, in one line
 * ("v2 (delegated): ...", "root: ...", "none: memory is limited per
 * process (RLIMIT_AS) ..."). */
const char *container_cgroup_mode(void);
/* A container's limits: {"cgroup": its cgroup folders, or why none}. */
json_t *container_limits(const struct container *c);

#endif
