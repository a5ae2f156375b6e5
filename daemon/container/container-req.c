/* container-req.c: commands and file requests sent to sbox-init, and the
 * messages it sends back (validated: sbox-init shares its uid with the
 * sandboxed processes, so what it says is untrusted). */
#include "daemon/container/container.h"
#include "daemon/container/container-internal.h"
#include "daemon/container/container-standin.h"
#include "protocol/channel.h"
#include "protocol/ctl.h"
#include "policy/strv.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Find (and optionally unlink) a request by id. */
struct container_req *
container_req_find(struct container *c, uint64_t id, int unlink)
{
	struct container_req **pp, *r;

	for (pp = &c->reqs; (r = *pp) != NULL; pp = &r->next)
		if (r->id == id) {
			if (unlink) {
				*pp = r->next;
				c->n_reqs--;
			}
			return r;
		}
	return NULL;
}

/* A new request with the next id, linked in. */
struct container_req *
container_req_new(struct container *c, enum container_req_kind kind,
    sbox_error *err)
{
	struct container_req *r;

	if (c->state != CS_READY) {
		error_set(err, E_SESSION_CLOSED, "the sandbox is %s",
		    c->state == CS_STARTING ? "not ready yet" : "closed");
		return NULL;
	}
	if (c->n_reqs >= CONTAINER_REQS_MAX) {
		error_set(err, E_LIMIT, "too many commands and file requests "
		    "in flight in this sandbox");
		return NULL;
	}
	if ((r = calloc(1, sizeof *r)) == NULL) {
		error_nomem(err);
		return NULL;
	}
	r->id = ++c->next_id;
	r->kind = kind;
	r->next = c->reqs;
	c->reqs = r;
	c->n_reqs++;
	return r;
}

/* An error for an errno from inside the sandbox. */
static void
container_req_errno(sbox_error *err, int e, const char *msg)
{
	const char *name = E_IO;

	if (e == ENOENT || e == ENOTDIR)
		name = E_NOT_FOUND;
	else if (e == EACCES || e == EPERM || e == EROFS)
		name = E_PERMISSION;
	else if (e == EINVAL)
		name = E_INVALID_PARAMS;
	error_set(err, name, "%s", msg);
}

/* Give a request its final callback with an error (the request is freed). */
static void
container_req_fail(struct container *c, struct container_req *r, int e,
    const sbox_error *err)
{
	switch (r->kind) {
	case RQ_CMD:
		if (!r->spawned) {
			if (r->on_spawned)
				r->on_spawned(c, r->id, -1, err, r->arg);
		} else if (r->on_exit)
			r->on_exit(c, r->id, -1, SIGKILL, 0, r->arg);
		break;
	case RQ_OPEN:
		if (r->open_cb)
			r->open_cb(c, -1, e, err, r->arg);
		break;
	case RQ_MKDIR:
	case RQ_STAT:
		if (r->done_cb)
			r->done_cb(c, NULL, e, err, r->arg);
		break;
	case RQ_LISTEN:
		if (r->listen_cb)
			r->listen_cb(c, NULL, 0, err, r->arg);
		break;
	}
	free(r);
}

/* Fail every pending request (the container ended). */
void
container_req_fail_all(struct container *c)
{
	struct container_req *r;
	sbox_error err = { 0 };

	error_set(&err, E_SESSION_CLOSED, "the sandbox has ended");
	while ((r = c->reqs) != NULL) {
		c->reqs = r->next;
		c->n_reqs--;
		container_req_fail(c, r, ESHUTDOWN, &err);
	}
}

static int container_req_ready_done(struct container *c);

/* Handle `ready`: keep the proxy listeners. */
static int
container_req_ready(struct container *c, json_t *m, int *fds, int nfds)
{
	json_t *fam = json_object_get(m, "families");
	json_t *port = json_object_get(m, "proxy_port");
	const char *f;
	int i;

	if (c->state != CS_STARTING || !json_is_array(fam) || nfds < 1 ||
	    nfds > 2 || (int)json_array_size(fam) != nfds ||
	    !json_is_integer(port) || json_integer_value(port) != c->proxy_port)
		return -1;
	for (i = 0; i < nfds; i++) {
		f = json_string_value(json_array_get(fam, (size_t)i));
		if (f == NULL || (strcmp(f, "inet") != 0 &&
		    strcmp(f, "inet6") != 0))
			return -1;
		c->proxy_fam[i] = strcmp(f, "inet") == 0 ? "inet" : "inet6";
		c->proxy_fds[i] = fds[i];
		fds[i] = -1;
	}
	c->n_proxy = nfds;
	c->got_ready = 1;
	/* the file guard first: ready once sbox-init says guarded (the guard
	 * went out with bwrap's start: sbox-init reads it after ready) */
	if (c->guarding)
		return 0;
	if (c->guard != NULL)
		return container_guard_send(c), 0;
	return -1;	/* no guard spec (its start is ending): never ready */
}

/* The container is ready: tell the owner. */
static int
container_req_ready_done(struct container *c)
{
	c->guarding = 0;
	c->state = CS_READY;
	c->t_ready = container_now_ms();
	if (c->ev_timer)
		event_del(c->ev_timer);
	if (c->on_ready)
		c->on_ready(c, NULL, c->arg);
	return 0;
}

/* Handle `error {req, errno, message}`. */
static int
container_req_error(struct container *c, json_t *m)
{
	json_t *req = json_object_get(m, "req");
	json_t *en = json_object_get(m, "errno");
	const char *msg = json_string_value(json_object_get(m, "message"));
	struct container_req *r;
	sbox_error err = { 0 };
	char text[400];
	int e;

	if (!json_is_integer(en) || msg == NULL)
		return -1;
	e = (int)json_integer_value(en);
	snprintf(text, sizeof text, "%s", msg);
	if (json_is_null(req) || req == NULL) {
		if (c->state == CS_STARTING)
			container_abort(c, E_SANDBOX_SETUP, text);
		return 0;
	}
	if (!json_is_integer(req) || json_integer_value(req) < 0)
		return -1;
	r = container_req_find(c, (uint64_t)json_integer_value(req), 0);
	if (r == NULL || (r->kind == RQ_CMD && r->spawned))
		return 0; /* e.g. a kill that came too late */
	container_req_find(c, r->id, 1);
	container_req_errno(&err, e, text);
	container_req_fail(c, r, e, &err);
	return 0;
}

/* Is fd (from inside the sandbox) the master of a pseudo-terminal? Made
 * non-blocking when it is. */
static int
container_req_is_master(int fd)
{
	struct stat st;
	int n;

	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    ioctl(fd, TIOCGPTN, &n) < 0)
		return 0;
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0;
}

/* The request a reply names (member key), or NULL when it is forgotten
 * or failed already. */
static struct container_req *
container_req_of(struct container *c, json_t *m, const char *key)
{
	return container_req_find(c, (uint64_t)json_integer_value(
	    json_object_get(m, key)), 0);
}

/* spawned {id, pid} (+ a terminal's master). */
static int
container_req_spawned(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	struct container *c = ctx;
	struct container_req *r;
	long long pid = json_integer_value(json_object_get(m, "pid"));

	(void)err;
	if (c->state == CS_STARTING)
		return -1;
	if ((r = container_req_of(c, m, "id")) == NULL)
		return 0; /* forgotten or already failed */
	if (r->kind != RQ_CMD || r->spawned || nfds != (r->tty ? 1 : 0) ||
	    (r->tty && !container_req_is_master(fds[0])))
		return -1;
	r->spawned = 1;
	if (r->tty && r->on_tty) {
		r->on_tty(c, r->id, fds[0], r->arg);
		fds[0] = -1;
	}
	if (r->on_spawned)
		r->on_spawned(c, r->id, (pid_t)pid, NULL, r->arg);
	return 0;
}

/* exit {id, code, signal, timed_out}. */
static int
container_req_exit(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	struct container *c = ctx;
	struct container_req *r;

	(void)fds; (void)nfds; (void)err;
	if (c->state == CS_STARTING)
		return -1;
	if ((r = container_req_of(c, m, "id")) == NULL)
		return 0;
	if (r->kind != RQ_CMD || !r->spawned)
		return -1;
	container_req_find(c, r->id, 1);
	if (r->on_exit)
		r->on_exit(c, r->id, (int)json_integer_value(json_object_get(m,
		    "code")), (int)json_integer_value(json_object_get(m,
		    "signal")), json_is_true(json_object_get(m, "timed_out")),
		    r->arg);
	free(r);
	return 0;
}

/* opened {req} + the file (open) or 1 to 2 listeners (listen_local). */
static int
container_req_opened(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	struct container *c = ctx;
	struct container_req *r;

	(void)err;
	if (c->state == CS_STARTING)
		return -1;
	if ((r = container_req_of(c, m, "req")) == NULL)
		return 0;
	if ((r->kind == RQ_OPEN && nfds != 1) ||
	    (r->kind == RQ_LISTEN && (nfds < 1 || nfds > 2)) ||
	    (r->kind != RQ_OPEN && r->kind != RQ_LISTEN))
		return -1;
	container_req_find(c, r->id, 1);
	if (r->kind == RQ_OPEN && r->open_cb) {
		r->open_cb(c, fds[0], 0, NULL, r->arg);
		fds[0] = -1;
	} else if (r->kind == RQ_LISTEN && r->listen_cb) {
		r->listen_cb(c, fds, nfds, NULL, r->arg);
		fds[0] = -1;
		if (nfds > 1)
			fds[1] = -1;
	}
	free(r);
	return 0;
}

/* done {req, stat?} (mkdir, stat). */
static int
container_req_done(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	struct container *c = ctx;
	struct container_req *r;
	json_t *st = json_object_get(m, "stat");

	(void)fds; (void)nfds; (void)err;
	if (c->state == CS_STARTING)
		return -1;
	if ((r = container_req_of(c, m, "req")) == NULL)
		return 0;
	if ((r->kind != RQ_MKDIR && r->kind != RQ_STAT) ||
	    (r->kind == RQ_STAT && !json_is_object(st)))
		return -1;
	container_req_find(c, r->id, 1);
	if (r->done_cb)
		r->done_cb(c, r->kind == RQ_STAT ? st : NULL, 0, NULL, r->arg);
	free(r);
	return 0;
}

/* ready {pid, proxy_port, families[]} + the proxy's listeners. */
static int
container_req_on_ready(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	struct container *c = ctx;

	(void)err;
	return c->got_ready ? -1 : container_req_ready(c, m, fds, nfds);
}

/* guarded {supervise}: the file guard is set up; the container is ready. */
static int
container_req_guarded(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	struct container *c = ctx;

	(void)m; (void)fds; (void)nfds; (void)err;
	return c->state == CS_STARTING && c->got_ready && c->guarding ?
	    container_req_ready_done(c) : -1;
}

/* refused {...}: a report of the file guard (container-guard.c). */
static int
container_req_refused(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	struct container *c = ctx;

	(void)fds; (void)nfds; (void)err;
	return c->state == CS_READY ? container_guard_refused(c, m) : -1;
}

/* exclude {...} + 3 fds and exclude_cancel {xid} (container-guard.c). */
static int
container_req_exclude(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	struct container *c = ctx;

	(void)err;
	return c->state == CS_READY ? container_guard_exclude(c, m, fds,
	    nfds) : -1;
}

/* fs_done {token}: a refusal the stand-ins saw was told
 * (container-standin.c); its open is answered. */
static int
container_req_fs_done(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	(void)fds; (void)nfds; (void)err;
	container_standin_done(ctx, m);
	return 0;
}

/* error {req, errno, message}. */
static int
container_req_on_error(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	(void)fds; (void)nfds; (void)err;
	return container_req_error(ctx, m);
}

#define ID(k)   { k, CHANNEL_INT, 0, 0, INT64_MAX }
#define PID(k)  { k, CHANNEL_INT, 0, 1, 1 << 22 }
#define STR(k, n) { k, CHANNEL_STR, 0, 0, n }
#define OPT(f, k) { k, f, CHANNEL_OPTIONAL, INT64_MIN, INT64_MAX }
static const struct channel_field container_req_f_ready[] = {
	PID("pid"), { "proxy_port", CHANNEL_INT, 0, 1, 65535 },
	{ "families", CHANNEL_STRV, 0, 1, 2 }, { NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_guarded[] = {
	{ "supervise", CHANNEL_BOOL, CHANNEL_OPTIONAL, 0, 0 },
	{ NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_refused[] = {
	ID("id"), PID("pid"), { "errno", CHANNEL_INT, 0, 0, 4095 },
	{ "op", CHANNEL_STR, 0, 1, 16 },
	{ "path", CHANNEL_PATH, 0, 1, CTL_PATH_MAX + 256 },
	STR("rule", 128), STR("reason", 512),
	{ "process", CHANNEL_STR, CHANNEL_OPTIONAL, 0, 64 },
	{ "hidden", CHANNEL_BOOL, CHANNEL_OPTIONAL, 0, 0 },
	{ "ticket", CHANNEL_INT, CHANNEL_OPTIONAL, 0, INT64_MAX },
	{ NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_exclude[] = {
	ID("id"), { "xid", CHANNEL_INT, 0, 1, INT64_MAX }, PID("pid"),
	{ "argv", CHANNEL_STRV, 0, 1, CTL_ARGV_MAX },
	{ "program", CHANNEL_PATH, 0, 1, 2 * CTL_PATH_MAX + 2 },
	STR("cwd", CTL_PATH_MAX), STR("pattern", 1024),
	OPT(CHANNEL_INT, "dev"), OPT(CHANNEL_INT, "ino"),
	OPT(CHANNEL_INT, "umask"), { NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_exclude_cancel[] = {
	{ "xid", CHANNEL_INT, 0, 1, INT64_MAX }, { NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_error[] = {
	{ "req", CHANNEL_INT, CHANNEL_OPTIONAL | CHANNEL_NULLABLE, 0,
	    INT64_MAX },
	{ "errno", CHANNEL_INT, 0, INT_MIN, INT_MAX },
	STR("message", CTL_MSG_MAX), { NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_spawned[] = {
	ID("id"), { "pid", CHANNEL_INT, 0, 1, INT_MAX },
	{ NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_exit[] = {
	ID("id"), { "code", CHANNEL_INT, 0, INT_MIN, INT_MAX },
	{ "signal", CHANNEL_INT, 0, 0, 127 },
	{ "timed_out", CHANNEL_BOOL, CHANNEL_OPTIONAL, 0, 0 },
	{ NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_opened[] = {
	ID("req"), { "families", CHANNEL_STRV, CHANNEL_OPTIONAL, 1, 2 },
	{ NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_fs_done[] = {
	{ "token", CHANNEL_INT, 0, 1, INT64_MAX }, { NULL, 0, 0, 0, 0 } };
static const struct channel_field container_req_f_done[] = {
	ID("req"), OPT(CHANNEL_OBJECT, "stat"), { NULL, 0, 0, 0, 0 } };
#undef ID
#undef PID
#undef STR
#undef OPT

/* What sboxd accepts from sbox-init (protocol/ctl.h): the one table. */
static const struct channel_row container_req_rows[] = {
	{ "ready", container_req_on_ready, CHANNEL_INIT, 1, 2,
	    container_req_f_ready },
	{ "guarded", container_req_guarded, CHANNEL_INIT, 0, 0,
	    container_req_f_guarded },
	{ "refused", container_req_refused, CHANNEL_INIT, 0, 0,
	    container_req_f_refused },
	{ "exclude", container_req_exclude, CHANNEL_INIT, 3, 3,
	    container_req_f_exclude },
	{ "exclude_cancel", container_req_exclude, CHANNEL_INIT, 0, 0,
	    container_req_f_exclude_cancel },
	{ "error", container_req_on_error, CHANNEL_INIT, 0, 0,
	    container_req_f_error },
	{ "spawned", container_req_spawned, CHANNEL_INIT, 0, 1,
	    container_req_f_spawned },
	{ "exit", container_req_exit, CHANNEL_INIT, 0, 0,
	    container_req_f_exit },
	{ "opened", container_req_opened, CHANNEL_INIT, 1, 2,
	    container_req_f_opened },
	{ "done", container_req_done, CHANNEL_INIT, 0, 0,
	    container_req_f_done },
	{ "fs_done", container_req_fs_done, CHANNEL_INIT, 0, 0,
	    container_req_f_fs_done },
};
static const struct channel_table container_req_table = {
	"sboxd from sbox-init", container_req_rows,
	sizeof container_req_rows / sizeof container_req_rows[0]
};

/* Handle one message from sbox-init: 0, or -1 with err (a protocol
 * violation: the container ends). */
int
container_req_msg(struct container *c, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	return channel_dispatch(&container_req_table, CHANNEL_INIT, c, m, fds,
	    nfds, err);
}

/* Unlink and free a request that could not be sent. */
void
container_req_drop(struct container *c, struct container_req *r)
{
	container_req_find(c, r->id, 1);
	free(r);
}


/* Send a request's message; on failure the request is dropped. */
static int
container_req_send(struct container *c, struct container_req *r, json_t *m,
    const int *fds, int nfds, sbox_error *err)
{
	int rc;

	if (m == NULL) {
		container_req_drop(c, r);
		return error_nomem(err);
	}
	rc = container_ctl_send(c, m, fds, nfds, err);
	json_decref(m);
	if (rc < 0) {
		container_req_drop(c, r);
		return error_context(err, "talking to the sandbox");
	}
	return 0;
}

/* The rlimits every command gets from the plan. */
static json_t *
container_req_limits(const struct plan_limits *l)
{
	json_t *o = json_pack("{s:i}", "core", 0);

	if (o == NULL)
		return NULL;
	if (l->nofile)
		json_object_set_new(o, "nofile", json_integer(
		    (json_int_t)l->nofile));
	if (l->fsize_bytes)
		json_object_set_new(o, "fsize", json_integer(
		    (json_int_t)l->fsize_bytes));
	if (l->memory_bytes)
		json_object_set_new(o, "as", json_integer(
		    (json_int_t)l->memory_bytes));
	if (l->pids)
		json_object_set_new(o, "nproc", json_integer(
		    (json_int_t)l->pids));
	return o;
}

/* Start a command inside. */
int
container_spawn(struct container *c, const struct container_cmd *cmd,
    uint64_t *id_out, sbox_error *err)
{
	struct container_req *r;
	json_t *argv, *env, *lim, *m;
	int use_fds, none, tty, fds[4], nfds;

	use_fds = cmd->fds[0] >= 0 && cmd->fds[1] >= 0 && cmd->fds[2] >= 0;
	none = cmd->fds[0] < 0 && cmd->fds[1] < 0 && cmd->fds[2] < 0;
	tty = cmd->tty_rows > 0 && cmd->tty_cols > 0;
	if (cmd->argv == NULL || cmd->argv[0] == NULL || (!use_fds && !none) ||
	    (tty && !none) || (cmd->has_channel && ((!use_fds && !tty) ||
	    cmd->channel_fd < 0)))
		return error_set(err, E_INVALID_PARAMS, "a command needs argv "
		    "and either three stdio descriptors, a terminal (either "
		    "with a channel) or none");
	if ((r = container_req_new(c, RQ_CMD, err)) == NULL)
		return -1;
	r->tty = tty;
	r->on_tty = cmd->on_tty;
	r->on_spawned = cmd->on_spawned;
	r->on_exit = cmd->on_exit;
	r->arg = cmd->arg;
	argv = strv_json(cmd->argv);
	env = strv_json(cmd->env);
	lim = container_req_limits(&c->limits);
	m = NULL;
	if (argv && env && lim)
		m = ctl_msg("spawn", "{s:I,s:O,s:O,s:s,s:s,s:I,s:b,s:O}",
		    "id", (json_int_t)r->id, "argv", argv, "env", env,
		    "cwd", cmd->cwd ? cmd->cwd : c->cwd,
		    "stdio", use_fds ? "fds" : tty ? "tty" : "none",
		    "timeout_ms", (json_int_t)cmd->timeout_ms,
		    "kill_group", cmd->kill_group, "limits", lim);
	if (m != NULL && cmd->has_channel)
		json_object_set_new(m, "channel", json_true());
	if (m != NULL && tty)
		json_object_set_new(m, "tty", json_pack("{s:i,s:i}", "rows",
		    (int)cmd->tty_rows, "cols", (int)cmd->tty_cols));
	json_decref(argv);
	json_decref(env);
	json_decref(lim);
	if (json_dumpb(m, NULL, 0, JSON_COMPACT) > CTL_MSG_MAX) {
		json_decref(m);
		container_req_drop(c, r);
		return error_set(err, E_TOO_LARGE, "the command's arguments and "
		    "environment are over %d bytes; pass large scripts on "
		    "standard input", CTL_MSG_MAX);
	}
	nfds = 0;
	if (use_fds) {
		memcpy(fds, cmd->fds, sizeof cmd->fds);
		nfds = 3;
	}
	if (cmd->has_channel)
		fds[nfds++] = cmd->channel_fd;
	if (container_req_send(c, r, m, nfds ? fds : NULL, nfds, err) < 0)
		return -1;
	if (id_out)
		*id_out = r->id;
	return 0;
}

/* Signal a command's whole process group. */
int
container_kill(struct container *c, uint64_t id, int sig, sbox_error *err)
{
	struct container_req *r = container_req_find(c, id, 0);
	json_t *m;
	int rc;

	if (r == NULL || r->kind != RQ_CMD)
		return error_set(err, E_COMMAND_NOT_FOUND, "no such command");
	if (c->state != CS_READY)
		return 0; /* it is being killed anyway */
	if ((m = ctl_msg("kill", "{s:I,s:i}", "id", (json_int_t)id, "signal",
	    sig)) == NULL)
		return error_nomem(err);
	rc = container_ctl_send(c, m, NULL, 0, err);
	json_decref(m);
	return rc;
}

/* Forget a command's callbacks; it keeps running. */
void
container_forget(struct container *c, uint64_t id)
{
	struct container_req *r = container_req_find(c, id, 0);

	if (r != NULL) {
		r->on_spawned = NULL;
		r->on_exit = NULL;
		r->open_cb = NULL;
		r->done_cb = NULL;
		r->listen_cb = NULL;
	}
}

/* Check a path for a file request. */
static int
container_req_path(const char *path, sbox_error *err)
{
	if (path == NULL || path[0] != '/' || strlen(path) > CTL_PATH_MAX)
		return error_set_field(err, E_INVALID_PARAMS, "path",
		    "the path must be absolute and at most %d bytes",
		    CTL_PATH_MAX);
	return 0;
}

/* Open a file inside the sandbox. */
int
container_open(struct container *c, const char *path, unsigned flags,
    mode_t mode, container_open_cb cb, void *arg, sbox_error *err)
{
	static const char *names[] = { "read", "write", "create", "excl",
	    "trunc", "append", "dir", "nofollow", "path" };
	struct container_req *r;
	json_t *fl;
	size_t i;

	if (container_req_path(path, err) < 0)
		return -1;
	if ((r = container_req_new(c, RQ_OPEN, err)) == NULL)
		return -1;
	r->open_cb = cb;
	r->arg = arg;
	fl = json_array();
	for (i = 0; fl != NULL && i < sizeof names / sizeof names[0]; i++)
		if (flags & (1u << i))
			json_array_append_new(fl, json_string(names[i]));
	return container_req_send(c, r, fl ? ctl_msg("open", "{s:I,s:s,s:o,"
	    "s:i}", "req", (json_int_t)r->id, "path", path, "flags", fl,
	    "mode", (int)(mode & 07777)) : NULL, NULL, 0, err);
}

/* Make a folder inside the sandbox. */
int
container_mkdir(struct container *c, const char *path, mode_t mode,
    container_done_cb cb, void *arg, sbox_error *err)
{
	struct container_req *r;

	if (container_req_path(path, err) < 0)
		return -1;
	if ((r = container_req_new(c, RQ_MKDIR, err)) == NULL)
		return -1;
	r->done_cb = cb;
	r->arg = arg;
	return container_req_send(c, r, ctl_msg("mkdir", "{s:I,s:s,s:i}", "req",
	    (json_int_t)r->id, "path", path, "mode", (int)(mode & 07777)),
	    NULL, 0, err);
}

/* Stat a path inside the sandbox. */
int
container_stat(struct container *c, const char *path, int nofollow,
    container_done_cb cb, void *arg, sbox_error *err)
{
	struct container_req *r;

	if (container_req_path(path, err) < 0)
		return -1;
	if ((r = container_req_new(c, RQ_STAT, err)) == NULL)
		return -1;
	r->done_cb = cb;
	r->arg = arg;
	return container_req_send(c, r, ctl_msg("stat", "{s:I,s:s,s:b}", "req",
	    (json_int_t)r->id, "path", path, "nofollow", nofollow), NULL, 0,
	    err);
}

/* Listening sockets on a port inside (for local_ports). */
int
container_listen_local(struct container *c, int port, container_listen_cb cb,
    void *arg, sbox_error *err)
{
	struct container_req *r;

	if (port < 1 || port > 65535)
		return error_set_field(err, E_INVALID_PARAMS, "port",
		    "a port is 1 to 65535");
	if ((r = container_req_new(c, RQ_LISTEN, err)) == NULL)
		return -1;
	r->listen_cb = cb;
	r->arg = arg;
	return container_req_send(c, r, ctl_msg("listen_local", "{s:I,s:i}",
	    "req", (json_int_t)r->id, "port", port), NULL, 0, err);
}
