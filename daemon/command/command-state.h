/* command-state.h: what every file of a command uses: the command itself
 * (its stdio streams, its state, its result), what starting one asks for,
 * the commands the daemon holds in the order they started, and a command's
 * state as JSON (command-state.c). The files above it (command-io.c,
 * command-tty.c, command-follow.c, command-blocked.c, command.c) include
 * this, never command.h. */
#ifndef SBOX_COMMAND_STATE_H
#define SBOX_COMMAND_STATE_H

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
	json_t              *blocked_held; /* command.blocked messages held
	                                  for a line's end (command-blocked.c) */
	struct event        *blocked_ev;   /* when to look again */
	int                  blocked_waits;
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
	void               (*may_finish)(struct command *c);
	                               /* command.c's, set at its start: told
	                                  by the stdio when a stream ends or a
	                                  forward is written out (the command
	                                  may be over) */
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
	int                no_started;  /* no command.started to the caller */
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

/* Hold a command (last in the order they started). */
void command_state_add(struct command *c);
/* Drop a command from those held (the caller frees it). */
void command_state_remove(struct command *c);
/* The command after c in the order they started (the first when c is
 * NULL), or NULL. */
struct command *command_state_next(const struct command *c);
/* The name of a command's state: running, or how it ended (failed,
 * timeout, killed, exited), for the store and results. */
const char *command_state_name(const struct command *c);
/* What the sandbox refused while the command ran: {files, hosts,
 * unreachable}. */
json_t *command_state_blocked(const struct command *c);
/* The command's state and result as JSON. */
json_t *command_state_to_json(const struct command *c);

#endif
