/* command.h: one command of a session: started in the session's container
 * (or on the host for an unsandboxed session and for approved runs outside
 * the sandbox), its stdio, output, limits, result and waiters. */
#ifndef SBOX_COMMAND_H
#define SBOX_COMMAND_H

#include <jansson.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "daemon/command/blocked.h"
#include "daemon/command/ttyline.h"
#include "protocol/error.h"
#include "protocol/ttysize.h"

struct session;
struct rpc_call;
struct hostexec_target;
struct bufferevent;
struct event;
struct evbuffer;

enum command_stdio {
	COMMAND_STDIO_NONE,   /* no input; output kept (capped), not streamed */
	COMMAND_STDIO_FDS,    /* the client's own fds (SCM_RIGHTS) */
	COMMAND_STDIO_PIPES,  /* output as command.output notifications */
};

enum command_state { COMMAND_RUNNING, COMMAND_DONE };

struct command_waiter;

/* Told when a command ends: the status a shell would give it (the exit
 * code, 128 + the signal, 127 when it could not start) and why it could
 * not start (or NULL). */
typedef void (*command_done_cb)(void *arg, int status, const char *failed);

struct command_stream {
	struct bufferevent *bev;      /* reads the command's pipe */
	struct evbuffer    *kept;     /* output kept for command.read (capped) */
	unsigned long long  total;    /* bytes seen */
	unsigned long long  dropped;  /* kept bytes dropped for the session's
	                                 or the daemon's output budget */
	int                 truncated;
	int                 open;     /* not at EOF yet */
	struct bufferevent *forward;  /* fds mode: copy to the client's fd */
	int                 paused;   /* reading stopped for backpressure */
};

struct command {
	TAILQ_ENTRY(command) entry;    /* in its session */
	TAILQ_ENTRY(command) all;      /* in the global list */
	struct session      *s;
	long long            id;       /* store id, public */
	uint64_t             ct_id;    /* id in the container */
	pid_t                host_pid; /* pid when run on the host */
	int                  outside;  /* ran outside the sandbox */
	long long            approval_id;
	char                *decided_by;   /* who allowed an outside run */
	char               **argv;
	char                *cwd;
	int                  detach;
	enum command_stdio   stdio;
	enum command_state   state;
	int                  started;  /* spawned */
	int                  exited;   /* exit seen (streams may still drain) */
	int                  exit_code;
	int                  sig;
	int                  timed_out;
	int                  failed;   /* could not start */
	char                *fail_msg;
	long long            start_ms, end_ms;
	int                  stdin_fd; /* pipes mode with stdin: our write end */
	int                  tty;      /* on a terminal of its sandbox: out.bev
	                                  is the pty's master (read and write) */
	struct ttysize       tty_size; /* its window size (the last asked) */
	int                  tty_master;/* the master has come from sbox-init */
	struct bufferevent  *tty_in;   /* fds mode: reads the client's stdin */
	struct command_stream out, err;
	struct ttyline       out_line; /* fds tty: does the line being written
	                                  on the client's terminal hold text */
	struct blocked       blocked;
	json_t              *hosts;    /* hosts refused while it ran */
	unsigned long        owner;    /* connection id of the client */
	struct rpc_call     *call;     /* the pending command.exec */
	struct command_waiter *waiters;/* pending command.wait calls */
	struct event        *timer;    /* timeout, then drain grace */
	struct event        *pump;     /* backpressure re-check */
	long long            timeout_ms;
	command_done_cb      on_done;  /* NULL, or told the end (below) */
	void                *done_arg;
	unsigned long       *followers;/* connection ids (command.follow) */
	size_t               nfollowers;
	char                 budget_top[17];/* top-level session whose output
	                                  budget its kept output counts in */
};

#define COMMAND_MAX_FOLLOWERS 16

/* What command.exec (or an approved run outside) asks for. */
struct command_params {
	struct session    *s;
	json_t            *argv;        /* array of strings */
	const char        *cwd;         /* NULL: the plan's working folder */
	json_t            *env;         /* {NAME: VALUE} or NULL */
	int                detach;
	long long          timeout_ms;  /* 0: the profile's default */
	enum command_stdio stdio;
	int                want_stdin;  /* pipes: keep stdin open for command.write */
	int                channel;     /* give the command a channel to sboxd (fd 3) */
	int                tty;         /* run it on a terminal of its sandbox */
	struct ttysize     tty_size;    /* of this size */
	int                outside;     /* run on the host, in the project folder */
	long long          approval_id;
	const char        *decided_by;  /* who allowed it (outside runs) */
	const struct hostexec_target *target; /* an approved run outside: the
	                                 * program, folder and environment fixed
	                                 * when it was asked for (argv, cwd and
	                                 * env above are then only recorded) */
	int               *given_fds;   /* fds stdio: these 3 (taken: set to
	                                 * -1) instead of the request's */
	command_done_cb    on_done;     /* NULL, or told when it ends */
	void              *done_arg;
};

/* Start a command. Detached: *result at once. Otherwise RPC_LATER: the call
 * is answered with the result when the command ends. */
int command_start(const struct command_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err);
/* The stdio mode and timeout (ms) a command request names. */
int command_parse_request(json_t *params, enum command_stdio *stdio,
    long long *timeout_ms, sbox_error *err);
/* The command after c in the order they started (the first when c is
 * NULL), or NULL. */
struct command *command_next(const struct command *c);
/* Find a command by id (E_COMMAND_NOT_FOUND). */
struct command *command_find(long long id, sbox_error *err);
/* command.wait: *result now if done, else RPC_LATER. */
int command_wait(struct command *c, struct rpc_call *call, json_t **result,
    sbox_error *err);
/* Signal a running command's process group. */
int command_kill(struct command *c, int sig, sbox_error *err);
/* rpc cancel callback of command.exec: the client went away or cancelled:
 * kill the command (again from a timer until the kill is sent;
 * command-cancel.c). */
void command_cancel_cb(struct rpc_call *call, void *arg);
/* Write to a pipes-mode command's stdin (or its terminal); eof closes it. */
int command_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err);
/* Change the window size of a command's terminal (command-tty.c). */
int command_tty_resize(struct command *c, const struct ttysize *size,
    sbox_error *err);
/* The command's state and result as JSON. */
json_t *command_to_json(const struct command *c);
/* Output kept for a command: {stdout, stderr (base64), output_truncated,
 * output_dropped (bytes dropped for the output budgets)}. */
json_t *command_output(const struct command *c);
/* command-follow.c: command.follow; *result is never set (the call is
 * answered inside, then the kept output is sent): RPC_LATER or -1. */
int command_follow(struct command *c, struct rpc_call *call, json_t **result,
    sbox_error *err);
/* command.started {request, command, session} to the requesting client. */
void command_follow_started(const struct command *c, struct rpc_call *call);
/* A chunk of output (stderr when err_stream) to the followers. */
void command_follow_chunk(struct command *c, int err_stream, const void *data,
    size_t n);
/* The command is over: command.exited to the followers, who are dropped. */
void command_follow_end(struct command *c);
/* How a command ended: {command, session, state, exit_code, signal,
 * timed_out, duration_ms}. */
json_t *command_follow_exit_json(const struct command *c);
/* The session is closing: its commands end (killed), waiters are answered,
 * and every command object is freed. */
void command_session_closed(struct session *s);
/* The file guard refused an operation of the command with container id
 * ct_id (0: every running command of the session): note it once in its
 * blocked.files {path, op, rule, message, reason, pid, process}. */
void command_note_file(struct session *s, uint64_t ct_id, const char *path,
    const char *op, const char *rule, const char *message,
    const char *reason, int pid, const char *process);
/* A host was refused for a session: note it on its running commands;
 * returns the command id when exactly one was running, else 0. */
long long command_note_refusal(struct session *s, const char *host,
    int port, const char *rule, const char *reason);
/* command-blocked.c: an allowed host the proxy could not reach (DNS
 * failure, connection refused, timeout): note it once on the session's
 * running commands, in blocked.unreachable {host, port, cause}. */
void command_note_unreachable(struct session *s, const char *host, int port,
    const char *cause);
/* command-session.c: the number of running commands of session s. */
int command_session_running(const struct session *s);
/* command-session.c: the database was re-created: insert the commands of
 * session s again; adds those written to *written, returns how many failed
 * (err: the last failure). */
int command_session_rewrite(struct session *s, int *written, sbox_error *err);
/* command-session.c: the disk guard found root full: kill the running
 * commands (inside a sandbox) of the sessions that bind it. */
void command_session_stop_writers(const char *root);
/* A new entry of a command's blocked.KIND ("files", "hosts",
 * "unreachable"): command.blocked to the client that runs it, at once. */
void command_blocked_notify(struct command *c, const char *kind,
    json_t *entry);

/* command-env.c: the environment of a command (the session's, then the
 * request's), and its working folder (absolute, or relative to the
 * project; normalised); NULL with err. */
char **command_env(const struct command_params *p, sbox_error *err);
char *command_cwd(const struct command_params *p, sbox_error *err);

#endif
