/* command.c: a session's commands: starting them (in the container or on
 * the host), timeouts, results, waiters and the end of a session. Under it,
 * each calling only those below: command-tty.c, command-blocked.c,
 * command-env.c; the stdio plumbing in command-io.c; command-follow.c;
 * command-state.c (the command itself, the commands held, their JSON). The
 * stdio tells it a command may be over through c->may_finish. */
#include "daemon/command/command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/command/command-blocked.h"
#include "daemon/command/command-io.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/container/container.h"
#include "daemon/container/diskguard.h"
#include "daemon/events.h"
#include "daemon/command/hostexec.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "daemon/session/session-keep.h"
#include "daemon/session/session-sequencer.h"
#include "daemon/session/session.h"
#include "policy/envfilter.h"
#include "policy/policy.h"
#include "policy/path.h"
#include "policy/strv.h"
#include "store/store.h"

#define COMMAND_DRAIN_MS   300  /* wait for output after the exit */
#define COMMAND_KEEP_DONE  64   /* finished commands kept per session */

struct command_waiter {
	struct rpc_call       *call;
	struct command        *c;
	struct command_waiter *next;
};

static void command_finish(struct command *c);

/* The stdio mode and timeout a command request (command.exec,
 * command.run_outside) names: "stdio" ("pipes" by default, "fds", "none")
 * and "timeout" in seconds (0 to a week). */
int
command_parse_request(json_t *params, enum command_stdio *stdio,
    long long *timeout_ms, sbox_error *err)
{
	const char *s = json_string_value(json_object_get(params, "stdio"));
	json_int_t t = json_integer_value(json_object_get(params, "timeout"));

	if (s == NULL || strcmp(s, "pipes") == 0)
		*stdio = COMMAND_STDIO_PIPES;
	else if (strcmp(s, "fds") == 0)
		*stdio = COMMAND_STDIO_FDS;
	else if (strcmp(s, "none") == 0)
		*stdio = COMMAND_STDIO_NONE;
	else
		return error_set_field(err, E_INVALID_PARAMS, "stdio",
		    "stdio must be \"fds\", \"pipes\" or \"none\"");
	if (t < 0 || t > 7 * 24 * 3600)
		return error_set_field(err, E_INVALID_PARAMS, "timeout",
		    "timeout must be between 0 and 604800 seconds");
	*timeout_ms = (long long)t * 1000;
	return 0;
}

/* Find a command by id. */
struct command *
command_find(long long id, sbox_error *err)
{
	struct command *c;

	for (c = command_state_next(NULL); c != NULL; c = command_state_next(c)) {
		if (c->id == id)
			return c;
	}
	error_set_field(err, E_COMMAND_NOT_FOUND, "command",
	    "no command %lld in a live session", id);
	return NULL;
}

/* Free a finished command. */
static void
command_free(struct command *c)
{
	if (c->tty)
		command_tty_free(c);
	command_io_free(c);
	if (c->timer)
		event_free(c->timer);
	command_blocked_free(c);
	blocked_free(&c->blocked);
	json_decref(c->hosts);
	strv_free(c->argv);
	free(c->cwd);
	free(c->decided_by);
	free(c->fail_msg);
	free(c->followers);
	free(c);
}

/* Drop the oldest finished commands of a session beyond the keep limit
 * (never `except`, which the caller still uses). */
static void
command_trim(struct session *s, struct command *except)
{
	struct command *c, *next;
	int done = 0;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state == COMMAND_DONE && c->waiters == NULL)
			done++;
		/* a kept command keeps its output, not its pipes: no finished
		 * command holds a descriptor outside the budget */
		if (c->state == COMMAND_DONE && c != except)
			command_io_release(c);
	}
	for (c = TAILQ_FIRST(&s->commands); c != NULL && done > COMMAND_KEEP_DONE;
	    c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->state != COMMAND_DONE || c->waiters != NULL || c == except)
			continue;
		TAILQ_REMOVE(&s->commands, c, entry);
		command_state_remove(c);
		s->ncommands--;
		command_free(c);
		done--;
	}
}

/* Answer the exec call and the waiters with the command's end. */
static void
command_finish_answer(struct command *c)
{
	struct command_waiter *w;
	json_t *res;

	if (c->call != NULL) {
		struct rpc_call *call = c->call;
		c->call = NULL;
		rpc_call_on_cancel(call, NULL, NULL);
		res = command_state_to_json(c);
		if (c->stdio != COMMAND_STDIO_FDS)
			json_object_update_new(res, command_output(c));
		rpc_call_reply(call, res);
	}
	while ((w = c->waiters) != NULL) {
		c->waiters = w->next;
		rpc_call_on_cancel(w->call, NULL, NULL);
		res = command_state_to_json(c);
		json_object_update_new(res, command_output(c));
		rpc_call_reply(w->call, res);
		free(w);
	}
}

/* Record the end, answer the exec call and the waiters. A command that ran
 * on the host (outside, or in a session without a sandbox) is answered
 * once its end is written; one that ran in the sandbox is answered first
 * and its end written right after, in the same turn of the loop (no other
 * request is read in between; issue 24: the client's exit then overlaps
 * the commit). */
static void
command_finish(struct command *c)
{
	sbox_error err;
	json_t *blocked;
	int in_sandbox = c->ct_id != 0 && c->host_pid <= 0;

	if (c->state == COMMAND_DONE)
		return;
	/* git's sequencer state it left, checked while it still counts as
	 * running (a refusal lands in its blocked files) */
	if (in_sandbox && c->s != NULL)
		session_sequencer_check(c->s, c->ct_id);
	/* the refusals held for the line's end go before the answer */
	command_blocked_flush(c);
	c->state = COMMAND_DONE;
	c->end_ms = sboxd_now_ms();
	if (c->timer)
		event_del(c->timer);
	if (c->tty)
		command_tty_free(c);
	command_io_close_inputs(c);
	command_io_close_forwards(c);
	if (in_sandbox)
		command_finish_answer(c);
	blocked = command_state_blocked(c);
	if (in_sandbox)	/* what its CLI kept in a home file (~/.claude.json) */
		session_keep_sync(c->s);
	if (c->s != NULL)	/* idle from now on (session list's idle_s) */
		c->s->active_ms = store_clock_now_ms();
	error_clear(&err);
	diskguard_check(NULL, NULL, NULL);	/* room for the record */
	if (store_command_finish(sboxd.store, c->id, c->exit_code, c->sig,
	    c->end_ms - c->start_ms, command_state_name(c), blocked, &err) == -1)
		log_error("recording the end of command %lld: %s", c->id,
		    err.message);
	if (c->approval_id > 0 && store_approval_finish(sboxd.store,
	    c->approval_id, c->exit_code, c->end_ms - c->start_ms, c->id,
	    &err) == -1)
		log_error("recording the outside run %lld: %s", c->approval_id,
		    err.message);
	json_decref(blocked);
	events_publish("command.exited", c->s->id, command_follow_exit_json(c));
	command_follow_end(c);
	command_finish_answer(c);
	if (c->on_done != NULL) {
		command_done_cb cb = c->on_done;
		c->on_done = NULL;
		cb(c->done_arg, c->failed ? 127 : c->sig > 0 ? 128 + c->sig :
		    c->exit_code, c->failed ? c->fail_msg : NULL);
	}
	if (c->s->state < SESSION_CLOSING)
		command_trim(c->s, c);
}

/* Finish once the exit is known and the output has drained (or the grace
 * time after the exit has passed); the stdio calls it through
 * c->may_finish. */
static void
command_maybe_finish(struct command *c)
{
	if (c->exited && !c->out.open && !c->err.open &&
	    !command_io_forward_pending(c))
		command_finish(c);
}

/* Timer: the timeout (kill) or the drain grace after the exit (finish). */
static void
command_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct command *c = arg;
	sbox_error err;

	(void)fd; (void)what;
	if (c->exited) {
		command_finish(c);
		return;
	}
	c->timed_out = 1;
	log_info("command %lld timed out after %lld ms; killing it", c->id,
	    c->timeout_ms);
	command_kill(c, SIGKILL, &err);
}

/* The command ended (from the container or the host). */
static void
command_exited(struct command *c, int code, int sig, int timed_out)
{
	struct timeval tv = { 0, COMMAND_DRAIN_MS * 1000 };

	c->exited = 1;
	c->exit_code = sig > 0 ? -1 : code;
	c->sig = sig;
	if (timed_out)
		c->timed_out = 1;
	command_maybe_finish(c);
	if (c->state == COMMAND_RUNNING && c->timer != NULL)
		event_add(c->timer, &tv);
}

/* container callback: a command ended inside. */
static void
command_ct_exit(struct container *ct, uint64_t id, int code, int sig,
    int timed_out, void *arg)
{
	(void)ct; (void)id;
	command_exited(arg, code, sig, timed_out);
}

/* container callback: a command started, or could not. */
static void
command_ct_spawned(struct container *ct, uint64_t id, pid_t pid,
    const sbox_error *err, void *arg)
{
	struct command *c = arg;

	(void)ct; (void)id; (void)pid;
	if (err == NULL) {
		c->started = 1;
		return;
	}
	c->failed = 1;
	free(c->fail_msg);
	c->fail_msg = strdup(err->message);
	command_io_close_outputs(c);
	command_exited(c, 127, 0, 0);
}

/* container callback: the master of the command's terminal. */
static void
command_ct_tty(struct container *ct, uint64_t id, int master, void *arg)
{
	(void)ct; (void)id;
	command_tty_master(arg, master);
}

/* hostexec callback: a command run on the host ended. */
static void
command_host_exit(pid_t pid, int code, int sig, void *arg)
{
	(void)pid;
	command_exited(arg, code, sig, 0);
}

/* Spawn the prepared command in its place; channel_fd (or -1) becomes the
 * command's fd 3. */
static int
command_spawn(struct command *c, char **env, int fds[3], int channel_fd,
    const struct hostexec_target *target, sbox_error *err)
{
	if (target != NULL) {
		if (hostexec_spawn_target(target, c->argv, fds, command_host_exit,
		    c, &c->host_pid, err) == -1)
			return -1;
		c->started = 1;
		return 0;
	}
	if (c->outside || !c->s->plan->sandboxed) {
		if (hostexec_spawn(c->argv, env, c->cwd, fds, command_host_exit,
		    c, &c->host_pid, err) == -1)
			return -1;
		c->started = 1;
		return 0;
	}
	struct container_cmd cc = {
		.argv = c->argv, .env = env, .cwd = c->cwd,
		.fds = { fds[0], fds[1], fds[2] }, .timeout_ms = 0,
		.kill_group = 0, .on_spawned = command_ct_spawned,
		.on_exit = command_ct_exit, .arg = c,
		.has_channel = channel_fd >= 0, .channel_fd = channel_fd,
		.tty_rows = c->tty ? c->tty_size.rows : 0,
		.tty_cols = c->tty ? c->tty_size.cols : 0,
		.on_tty = command_ct_tty,
	};
	/* what git's config names may have changed since the last command */
	if (session_gitcfg_refresh(c->s, err) < 0)
		return -1;
	return container_spawn(c->s->ct, &cc, &c->ct_id, err);
}

/* Open a channel to sboxd for a command inside a sandbox: a socketpair
 * whose daemon end is a client connection of that session (scoped to it by
 * dispatch); the other end becomes the command's fd 3 (SBOX_CHANNEL_FD). */
static int
command_channel(struct command *c, char ***env, sbox_error *err)
{
	int sv[2];

	if (c->outside || !c->s->plan->sandboxed || c->s->ct == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "channel",
		    "a channel is for commands inside a sandbox");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return error_set_errno(err, E_IO, errno, "socketpair");
	if (client_open(sv[0], getuid(), getgid(), 0, c->s->id) == NULL) {
		close(sv[0]);
		close(sv[1]);
		return error_nomem(err);
	}
	if (strv_append(env, "SBOX_CHANNEL_FD=3") == -1) {
		close(sv[1]);
		return error_nomem(err);
	}
	return sv[1];
}

/* Record the command in the store; its id becomes the command's id. */
static int
command_record(struct command *c, const struct command_params *p,
    sbox_error *err)
{
	struct store_command sc = {
		.session = c->s->id, .argv = p->argv, .cwd = c->cwd,
		.env_names = NULL, .detach = c->detach, .outside = c->outside,
		.approval_id = p->approval_id, .started_at = 0,
	};
	json_t *names = json_array();
	const char *k;
	json_t *v;

	if (p->env != NULL) {
		json_object_foreach(p->env, k, v)
			json_array_append_new(names, json_string(k));
	}
	sc.env_names = names;
	c->id = store_command_start(sboxd.store, &sc, err);
	json_decref(names);
	return c->id > 0 ? 0 : -1;
}

/* Start a command. */
int
command_start(const struct command_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err)
{
	struct command *c;
	char **env = NULL;
	int fds[3] = { -1, -1, -1 }, rc = -1, channel = -1;
	size_t i;
	json_t *a;

	if (json_array_size(p->argv) == 0)
		return error_set_field(err, E_INVALID_PARAMS, "argv",
		    "argv must name a program");
	if (p->tty && (p->outside || p->target != NULL ||
	    !p->s->plan->sandboxed || p->s->ct == NULL))
		return error_set_field(err, E_INVALID_PARAMS, "tty",
		    "a terminal is made inside a sandbox, and %s",
		    p->outside || p->target != NULL ? "this command runs "
		    "outside it" : "this session is not sandboxed");
	if (!p->outside && p->target == NULL && diskguard_check(p->s->plan,
	    p->s->project, err) == -1)
		return -1;
	if ((c = calloc(1, sizeof *c)) == NULL)
		return error_nomem(err);
	c->s = p->s;
	c->may_finish = command_maybe_finish;
	c->outside = p->outside;
	c->approval_id = p->approval_id;
	c->detach = p->detach;
	c->stdio = p->stdio;
	c->tty = p->tty;
	c->tty_size = p->tty_size;
	c->stdin_fd = -1;
	c->exit_code = -1;
	c->hosts = json_array();
	blocked_init(&c->blocked);
	c->owner = call != NULL && rpc_call_conn(call) ?
	    client_id(rpc_call_conn(call)) : 0;
	c->on_done = p->on_done;
	c->done_arg = p->done_arg;
	if (p->decided_by != NULL && (c->decided_by = strdup(p->decided_by)) ==
	    NULL)
		goto fail_oom;
	json_array_foreach(p->argv, i, a) {
		if (strv_append(&c->argv, json_string_value(a)) == -1)
			goto fail_oom;
	}
	if ((c->cwd = command_cwd(p, err)) == NULL)
		goto fail;
	if ((env = command_env(p, err)) == NULL)
		goto fail;
	c->timeout_ms = p->timeout_ms > 0 ? p->timeout_ms :
	    (long long)p->s->plan->limits.timeout_ms;
	c->timer = event_new(sboxd.base, -1, 0, command_timer_cb, c);
	if (command_io_setup(c, call, p->given_fds, p->want_stdin, fds,
	    err) == -1 || (c->tty && command_tty_setup(c, call, err) == -1))
		goto fail;
	if (command_record(c, p, err) == -1)
		goto fail;
	c->start_ms = sboxd_now_ms();
	c->state = COMMAND_RUNNING;
	TAILQ_INSERT_TAIL(&p->s->commands, c, entry);
	command_state_add(c);
	p->s->ncommands++;
	if (p->channel && (channel = command_channel(c, &env, err)) == -1)
		goto fail_started;
	/* the answers to the client's requests before this one (session.info
	 * read with it: the notes said before the command's output) leave
	 * before the command can run */
	if (call != NULL)
		client_flush(rpc_call_conn(call));
	if (command_spawn(c, env, fds, channel, p->target, err) == -1) {
fail_started:
		if (channel >= 0)
			close(channel);
		command_io_close_child_fds(fds);
		c->on_done = NULL;	/* the caller hears of it from -1 */
		c->failed = 1;
		c->fail_msg = strdup(err->message);
		c->exited = 1;
		command_io_close_outputs(c);
		command_finish(c);
		strv_free(env);
		return -1;
	}
	command_io_close_child_fds(fds);
	if (channel >= 0)
		close(channel);
	strv_free(env);
	if (c->timeout_ms > 0) {
		struct timeval tv = { c->timeout_ms / 1000,
		    (c->timeout_ms % 1000) * 1000 };
		event_add(c->timer, &tv);
	}
	if (call != NULL && !p->no_started)
		command_follow_started(c, call);
	events_publish("command.started", c->s->id, json_pack("{s:I, s:O, s:b}",
	    "command", (json_int_t)c->id, "argv", p->argv, "outside",
	    c->outside));
	if (c->detach || call == NULL) {
		*result = command_state_to_json(c);
		return 0;
	}
	c->call = call;
	rpc_call_on_cancel(call, command_cancel_cb, c);
	return RPC_LATER;
fail_oom:
	error_nomem(err);
fail:
	command_io_close_child_fds(fds);
	strv_free(env);
	command_free(c);
	return rc;
}

/* Write to a pipes-mode command's stdin, or type on its terminal; eof
 * closes the stdin. */
int
command_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err)
{
	if (c->tty)
		return command_tty_write(c, data, n, eof, err);
	return command_io_write(c, data, n, eof, err);
}

/* A waiter's client went away: drop the waiter. */
static void
command_waiter_cancel(struct rpc_call *call, void *arg)
{
	struct command *c = arg;
	struct command_waiter **pp, *w;
	sbox_error err;

	for (pp = &c->waiters; (w = *pp) != NULL; pp = &w->next) {
		if (w->call == call) {
			*pp = w->next;
			free(w);
			error_set(&err, E_CANCELLED, "command.wait cancelled");
			rpc_call_fail(call, &err);
			return;
		}
	}
}

/* command.wait: the result now if done, else when it ends. */
int
command_wait(struct command *c, struct rpc_call *call, json_t **result,
    sbox_error *err)
{
	struct command_waiter *w;

	if (c->state == COMMAND_DONE) {
		*result = command_state_to_json(c);
		json_object_update_new(*result, command_output(c));
		return 0;
	}
	if ((w = calloc(1, sizeof *w)) == NULL)
		return error_nomem(err);
	w->call = call;
	w->c = c;
	w->next = c->waiters;
	c->waiters = w;
	rpc_call_on_cancel(call, command_waiter_cancel, c);
	return RPC_LATER;
}

/* Signal a running command's process group. */
int
command_kill(struct command *c, int sig, sbox_error *err)
{
	if (c->state != COMMAND_RUNNING || c->exited)
		return error_set_field(err, E_INVALID_PARAMS, "command",
		    "command %lld is not running", c->id);
	if (c->host_pid > 0) {
		if (kill(-c->host_pid, sig) == -1 && kill(c->host_pid, sig) == -1)
			return error_set_errno(err, E_IO, errno, "kill");
		return 0;
	}
	if (c->s->ct == NULL)
		return error_set(err, E_SESSION_CLOSED, "the session has no container");
	return container_kill(c->s->ct, c->ct_id, sig, err);
}

/* The session is closing: its commands end and are freed. */
void
command_session_closed(struct session *s)
{
	struct command *c;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state != COMMAND_RUNNING)
			continue;
		if (c->host_pid > 0 && !c->exited)
			kill(-c->host_pid, SIGKILL);
		if (!c->exited) {
			c->exited = 1;
			c->sig = c->sig ? c->sig : SIGKILL;
			c->exit_code = -1;
		}
		command_io_close_outputs(c);
		command_finish(c);
	}
	while ((c = TAILQ_FIRST(&s->commands)) != NULL) {
		TAILQ_REMOVE(&s->commands, c, entry);
		command_state_remove(c);
		if (c->host_pid > 0)
			hostexec_forget(c->host_pid);
		else if (s->ct != NULL)
			container_forget(s->ct, c->ct_id);
		command_free(c);
	}
	s->ncommands = 0;
}

/* A file was refused for a session: note it on its running commands. */
void
command_note_file(struct session *s, uint64_t ct_id, const char *path,
    const char *op, const char *rule, const char *message, const char *reason,
    int pid, const char *process)
{
	struct command *c;
	size_t i;
	json_t *f;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state != COMMAND_RUNNING || c->outside ||
		    (ct_id != 0 && c->ct_id != ct_id))
			continue;
		json_array_foreach(c->blocked.files, i, f)
			if (strcmp(json_string_value(json_object_get(f, "path")),
			    path) == 0 && strcmp(json_string_value(
			    json_object_get(f, "op")), op) == 0)
				break;
		if (i == json_array_size(c->blocked.files) &&
		    json_array_size(c->blocked.files) < BLOCKED_MAX_FILES) {
			json_array_append_new(c->blocked.files, json_pack(
			    "{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "path", path,
			    "op", op, "rule", rule, "message", message, "reason",
			    reason, "pid", pid, "process", process));
			command_blocked_notify(c, "files", json_array_get(
			    c->blocked.files, i));
		}
	}
}

/* A host was refused for a session: note it on its running commands. */
long long
command_note_refusal(struct session *s, const char *host, int port,
    const char *rule, const char *reason)
{
	struct command *c, *only = NULL;
	int running = 0;
	size_t i;
	json_t *h;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state != COMMAND_RUNNING)
			continue;
		running++;
		only = c;
		json_array_foreach(c->hosts, i, h) {
			if (strcmp(json_string_value(json_object_get(h, "host")),
			    host) == 0 && json_integer_value(json_object_get(h,
			    "port")) == port)
				break;
		}
		if (i == json_array_size(c->hosts) && i < 64) {
			json_array_append_new(c->hosts, json_pack("{s:s, s:i, "
			    "s:s, s:s}", "host", host, "port", port, "rule",
			    rule ? rule : "", "reason", reason ? reason : ""));
			command_blocked_notify(c, "hosts", json_array_get(
			    c->hosts, i));
		}
	}
	return running == 1 ? only->id : 0;
}
