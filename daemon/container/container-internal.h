/* container-internal.h: what container*.c files share. */
#ifndef SBOX_CONTAINER_INTERNAL_H
#define SBOX_CONTAINER_INTERNAL_H

#include <event2/util.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "daemon/container/container.h"
#include "policy/render-bwrap.h"
#include "protocol/error.h"

/* Cgroups a container's bwrap joins (as root: pids, maybe memory). */
struct container_cg {
	char *dirs[2];
	int   procs_fd[2];
	int   n;
};

/* As root with a pids (or memory) limit: make the cgroups (-1 with err when
 * a pids limit cannot be enforced). Nothing to do otherwise. */
int container_cgroup_setup(const struct plan_limits *l,
    struct container_cg *cg, sbox_error *err);
/* In the forked child before exec: join the cgroups; 0, or -1 with errno
 * and *which the cgroup that could not be joined. */
int container_cgroup_join(const struct container_cg *cg, const char **which);
/* Close and remove them (once bwrap has been reaped; a busy one is
 * retried from the loop). */
void container_cgroup_cleanup(struct container_cg *cg);
/* container_cgroup_start with root given (tests, with cgroup_set_paths). */
void container_cgroup_init(struct event_base *base, int root);
/* Between container_cgroup_init and container_cgroup_stop? */
int container_cgroup_started(void);
/* The container's limits as JSON: {"cgroup": its folders, or why none}. */
json_t *container_cgroup_describe(const struct container_cg *cg);

struct container_binds;

/* A spare launcher (container-spare.c): a fork of sboxd made ahead, already
 * in fresh cgroups made for limits (joining one waits for the kernel, for
 * milliseconds), waiting on sock for what to exec: a create whose limits
 * are the same takes it and only sends bwrap's descriptors and arguments. */
struct container_spare {
	pid_t               pid;
	int                 sock;
	struct container_cg cg;
	struct plan_limits  limits;
	int                 staged;  /* root: its mount namespace made ahead
	                                (container_launch_stage) for bwrap */
	char               *bwrap;
};

/* Make a spare for limits soon, from the loop (none when containers get no
 * cgroup; one at a time: one for other limits is replaced). */
void container_spare_later(struct event_base *base,
    const struct plan_limits *l, const char *bwrap);
/* Hand over the waiting spare when it was made for l (same pids and memory
 * limits), for this bwrap and staged binds or not (as root, it made
 * bwrap's mount namespace ahead), and has joined its cgroups: 0 and *out
 * (no longer watched: the caller owns its pid and cgroups); else -1 (a
 * spare for other limits, or one that could not join, is ended and its
 * cgroups removed). */
int container_spare_take(const struct plan_limits *l, int staged,
    const char *bwrap, struct container_spare *out);
/* Send a taken spare bwrap's path, argv, src (fds 0-5, as
 * container_launch_exec) and the held binds: it execs bwrap. 0, or -1 with
 * err (the caller then drops it). */
int container_spare_go(struct container_spare *s, const char *bwrap,
    char *const *argv, const int src[6], const struct container_binds *b,
    sbox_error *err);
/* End a taken spare: kill, reap, remove its cgroups. */
void container_spare_drop(struct container_spare *s);
/* End the waiting spare (shutdown); no more are made until
 * container_cgroup_init runs again (container_cgroup_started). */
void container_spare_stop(void);
/* The waiting spare's pid (0: none) and cgroups (for tests). */
pid_t container_spare_waiting(const struct container_cg **cg);
#define CONTAINER_ERR_MAX  8192   /* bwrap stderr kept */
#define CONTAINER_REQS_MAX 65536  /* commands + requests in flight */

/* The fd numbers bwrap gets. */
enum { CFD_CTL = 3, CFD_ARGS = 4, CFD_SECCOMP = 5, CFD_BINDS = 6 };

enum container_state { CS_STARTING, CS_READY, CS_CLOSING, CS_DEAD };
enum container_req_kind { RQ_CMD, RQ_OPEN, RQ_MKDIR, RQ_STAT, RQ_LISTEN };

/* A command or file request waiting for sbox-init. */
struct container_req {
	uint64_t                id;
	enum container_req_kind kind;
	int                     spawned;
	int                     tty;      /* a command on a terminal */
	container_tty_cb        on_tty;
	container_spawned_cb    on_spawned;
	container_exit_cb       on_exit;
	container_open_cb       open_cb;
	container_done_cb       done_cb;
	container_listen_cb     listen_cb;
	void                   *arg;
	struct container_req   *next;
};

struct container {
	struct event_base    *base;
	enum container_state  state;
	pid_t                 pid;
	int                   status;
	int                   reaped;
	int                   ctl;
	struct event         *ev_ctl;
	struct ctl_queue     *ctlq;     /* messages waiting for a full socket */
	struct event         *ev_ctl_out; /* ctl writable while ctlq waits */
	int                   errfd;
	struct event         *ev_err;
	char                  errbuf[CONTAINER_ERR_MAX + 1];
	size_t                errlen;
	struct event         *ev_timer;
	int                   timeout_ms;
	container_ready_cb    on_ready;
	container_dead_cb     on_dead;
	void                 *arg;
	container_closed_cb   on_closed;
	void                 *closed_arg;
	int                   proxy_port;
	int                   proxy_fds[2];
	const char           *proxy_fam[2];
	int                   n_proxy;
	struct container_cg   cg;
	char                 *cwd;
	struct plan_limits    limits;
	uint64_t              next_id;
	struct container_req *reqs;
	int                   n_reqs;
	long long             t_start, t_ready;
	sbox_error            why;      /* set when we decided it must end */
	int                   have_why;
	json_t               *guard;    /* the file guard's spec, sent after
	                                   ready (NULL: unsandboxed test use) */
	int                   guarding; /* sent, waiting for guarded */
	int                   got_ready; /* sbox-init said ready */
	container_refused_cb  on_refused;
	container_exclude_cb  on_exclude;
	double                refused_tokens; /* rate limit of refused */
	long long             refused_ms;
	struct standin       *standin;  /* the hidden areas' stand-ins
	                                   (container-standin.c), or NULL */
	struct render_bwrap_standin *standin_si;
	struct container_standin_stage *standin_stage;
	int                   standin_sock; /* the launcher sends the device */
	struct event         *ev_standin;
};

/* A new request of kind with the next id, linked in (NULL with err when
 * the container is not ready or too busy). */
struct container_req *container_req_new(struct container *c,
    enum container_req_kind kind, sbox_error *err);
/* Unlink and free a request that could not be sent. */
void container_req_drop(struct container *c, struct container_req *r);
/* Find (and optionally unlink) a request by id. */
struct container_req *container_req_find(struct container *c, uint64_t id,
    int unlink);
/* Give every pending request its final callback (the container ended). */
void container_req_fail_all(struct container *c);
/* container-guard.c: the guard message's body for a spec
 * (SBOX_BENCH_NO_GUARD=1 in sboxd's environment turns the supervisor off:
 * benchmarks only). */
struct guard_spec;
json_t *container_guard_spec(const struct guard_spec *g, int standins,
    const char **why);
/* Send the guard message after ready (0 or -1, the container then
 * aborted); handle a refused report (-1 = invalid). */
int container_guard_send(struct container *c);
int container_guard_refused(struct container *c, json_t *m);
/* Handle exclude {id, xid, pid, argv, program, cwd, pattern} + 3 fds and
 * exclude_cancel {xid}; -1 = invalid. */
int container_guard_exclude(struct container *c, json_t *m, int *fds,
    int nfds);
/* Handle one message from sbox-init; -1 = protocol violation. */
int container_req_msg(struct container *c, json_t *m, int *fds, int nfds,
    sbox_error *err);
/* Decide the container must end: remember why, SIGKILL bwrap. */
void container_abort(struct container *c, const char *name, const char *msg);
/* Milliseconds on the monotonic clock. */
long long container_now_ms(void);
/* Send a message to sbox-init (msg not stolen), queued behind what waits
 * when the socket is full (container.c): 0, or -1 with err (E_LIMIT when
 * the queue is full). */
int container_ctl_send(struct container *c, json_t *msg, const int *fds,
    int nfds, sbox_error *err);
/* The control socket is writable again: send what waits (container.c). */
void container_on_ctl_out(evutil_socket_t fd, short what, void *arg);
/* Read what bwrap wrote to stderr (the first CONTAINER_ERR_MAX bytes). */
void container_read_err(struct container *c);
/* Release everything but the struct (idempotent). */
void container_teardown(struct container *c);
/* Free the container (from the event loop, after callbacks unwound). */
void container_free(evutil_socket_t fd, short what, void *arg);

#endif
