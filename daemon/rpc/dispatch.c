/* dispatch.c: from one request line to one reply: envelope, method table,
 * parameter check, handler. The one place where errors become JSON-RPC. */
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/rpc/conn.h"
#include "daemon/log.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "protocol/envelope.h"

#define DISPATCH_MAX_FDS 16
#define DISPATCH_MAX_BATCH 64   /* requests in one batch */
/* A store locked by another process: an RPC_STORE_WAIT method is run again
 * from a timer (never a blocking wait: the loop serves everyone else
 * meanwhile) for up to this long; the client hears of the wait once it
 * passes DISPATCH_STORE_TELL_MS (command.waiting). */
#define DISPATCH_STORE_WAIT_MS 5000
#define DISPATCH_STORE_TELL_MS 1000
#define DISPATCH_STORE_STEP_MS 200   /* the longest pause between tries */

/* A batch being answered: the replies are gathered into one array, sent
 * when the last of its requests is answered. */
struct dispatch_batch {
	unsigned long conn;      /* connection id */
	json_t       *replies;   /* array */
	int           pending;   /* requests of the batch not answered yet */
	size_t        bytes;     /* size of the replies gathered */
	int           over;      /* past the output limit: client dropped */
};

struct rpc_call {
	struct conn  *conn;      /* NULL once the client has gone */
	json_t       *id;        /* NULL for a notification */
	char         *method;
	int           fds[DISPATCH_MAX_FDS];
	int           nfds;
	rpc_cancel_cb cancel_cb;
	void         *cancel_arg;
	int           cancelled; /* $/cancelRequest named it */
	struct dispatch_batch *batch; /* the batch it came in, or NULL */
	/* RPC_STORE_WAIT: what a try again needs */
	const struct rpc_method *m;
	json_t       *params;    /* the checked params, kept while waiting */
	int           spare[DISPATCH_MAX_FDS]; /* copies of fds, -1: none */
	struct event *wait_ev;   /* the next try, while the store is locked */
	long long     wait_since;/* ms of the first try, 0: never waited */
	int           wait_step; /* ms to the next try */
	int           told;      /* command.waiting sent */
	int           in_handler;/* its handler runs: a free waits for it */
	int           freed;     /* answered while its handler ran */
};

static void dispatch_handle(struct rpc_call *call,
    const struct rpc_method *m, json_t *params);
static void dispatch_wait_cb(evutil_socket_t fd, short what, void *arg);

static struct dispatch_batch *dispatch_cur_batch; /* being dispatched now */

static const struct rpc_method *const dispatch_tables[] = {
	rpc_rpc_methods,
	rpc_daemon_methods,
	rpc_events_methods,
	rpc_sandbox_methods,
	rpc_session_methods,
	rpc_provider_methods,
	rpc_command_methods,
	rpc_file_methods,
	rpc_approval_methods,
	rpc_cache_methods,
};

/* Find a method by name across all tables. */
const struct rpc_method *
dispatch_find(const char *name)
{
	const struct rpc_method *m;
	size_t i;

	for (i = 0; i < sizeof dispatch_tables / sizeof dispatch_tables[0]; i++) {
		for (m = dispatch_tables[i]; m->name != NULL; m++) {
			if (strcmp(m->name, name) == 0)
				return m;
		}
	}
	return NULL;
}

/* Call fn(method, arg) for every method of every table. */
void
dispatch_each(void (*fn)(const struct rpc_method *m, void *arg), void *arg)
{
	const struct rpc_method *m;
	size_t i;

	for (i = 0; i < sizeof dispatch_tables / sizeof dispatch_tables[0]; i++) {
		for (m = dispatch_tables[i]; m->name != NULL; m++)
			fn(m, arg);
	}
}

/* A request of a batch is finished (msg, stolen, its reply or NULL): once
 * all are, send the array of replies (nothing when it is empty). */
static void
dispatch_batch_done(struct dispatch_batch *b, json_t *msg)
{
	struct conn *c;

	if (msg != NULL)
		json_array_append_new(b->replies, msg);
	if (--b->pending > 0)
		return;
	if (json_array_size(b->replies) > 0 && (c = conn_find(b->conn)) != NULL)
		conn_send(c, b->replies);
	json_decref(b->replies);
	free(b);
}

/* Send a reply message (stolen): on the connection, or into its batch. */
static void
dispatch_send(struct conn *c, struct dispatch_batch *b, json_t *msg)
{
	if (b != NULL) {
		if (msg == NULL)
			return;
		/* the gathered answers count as queued output: past the
		 * limit the client is dropped, as conn_send would */
		b->bytes += json_dumpb(msg, NULL, 0, JSON_COMPACT) + 1;
		if (b->over || b->bytes > sboxd.lim.max_output_queue) {
			json_decref(msg);
			if (!b->over) {
				b->over = 1;
				json_array_clear(b->replies);
				if ((c = conn_find(b->conn)) != NULL) {
					log_warn("client %lu: the answers of a batch "
					    "pass the output limit; disconnecting it",
					    b->conn);
					conn_close(c);
				}
			}
			return;
		}
		json_array_append_new(b->replies, msg);
		return;
	}
	if (c != NULL && msg != NULL)
		conn_send(c, msg);
	json_decref(msg);
}

/* Send an error reply: the one place an sbox_error becomes JSON-RPC. extra,
 * when given, is merged into the error's data (and stolen). */
static void
dispatch_send_error_data(struct conn *c, struct dispatch_batch *b, json_t *id,
    const sbox_error *err, json_t *extra)
{
	json_t *msg, *data;

	msg = envelope_error(id, err);
	if (msg != NULL && extra != NULL &&
	    (data = json_object_get(json_object_get(msg, "error"), "data")) != NULL)
		json_object_update(data, extra);
	json_decref(extra);
	dispatch_send(c, b, msg);
}

/* Send an error reply. */
static void
dispatch_send_error(struct conn *c, json_t *id, const sbox_error *err)
{
	dispatch_send_error_data(c, dispatch_cur_batch, id, err, NULL);
}

/* Send a result reply (steals result). */
static void
dispatch_send_result(struct conn *c, struct dispatch_batch *b, json_t *id,
    json_t *result)
{
	dispatch_send(c, b, envelope_result(id, result));
}

/* Release a call and any fds the handler did not take. */
static void
dispatch_call_free(struct rpc_call *call)
{
	int i;

	if (call->in_handler) {	/* dispatch_handle frees it after */
		call->freed = 1;
		return;
	}
	for (i = 0; i < call->nfds; i++) {
		if (call->fds[i] >= 0)
			close(call->fds[i]);
		if (call->m != NULL && call->spare[i] >= 0)
			close(call->spare[i]);
	}
	if (call->wait_ev != NULL)
		event_free(call->wait_ev);
	json_decref(call->params);
	json_decref(call->id);
	free(call->method);
	free(call);
}

/* The connection a call came on (NULL once that client has gone, and for
 * the daemon's own work, which has no call). */
static struct conn *
dispatch_call_conn(struct rpc_call *call)
{
	return call != NULL ? call->conn : NULL;
}

/* The method name of a call. */
static const char *
dispatch_call_method(struct rpc_call *call)
{
	return call->method;
}

/* The JSON-RPC id of a call. */
static const json_t *
dispatch_call_id(const struct rpc_call *call)
{
	return call->id;
}

/* Number of fds the client passed with this request. */
static int
dispatch_call_nfds(struct rpc_call *call)
{
	return call->nfds;
}

/* Hand over one passed fd (the call no longer closes it). */
static int
dispatch_call_take_fd(struct rpc_call *call, int i)
{
	int fd;

	if (i < 0 || i >= call->nfds)
		return -1;
	fd = call->fds[i];
	call->fds[i] = -1;
	return fd;
}

/* Look at one passed fd without taking it (-1 when there is none). */
static int
dispatch_call_peek_fd(struct rpc_call *call, int i)
{
	if (i < 0 || i >= call->nfds)
		return -1;
	return call->fds[i];
}

/* Register what to do if the call is cancelled or its client disconnects. */
static void
dispatch_call_on_cancel(struct rpc_call *call, rpc_cancel_cb cb, void *arg)
{
	call->cancel_cb = cb;
	call->cancel_arg = arg;
}

/* The answer to a cancelled request: always sbox.Cancelled; what the
 * request did anyway goes in data.result (a result) or data.error (the
 * error it ended with). */
static void
dispatch_send_cancelled(struct rpc_call *call, json_t *result,
    const sbox_error *cause)
{
	sbox_error err;
	json_t *extra;

	error_set(&err, E_CANCELLED, "%s was cancelled", call->method);
	if (result != NULL)
		extra = json_pack("{s:o}", "result", result);
	else if (cause != NULL && strcmp(cause->name, E_CANCELLED) != 0)
		extra = json_pack("{s:{s:s, s:s}}", "error", "name", cause->name,
		    "message", cause->message);
	else
		extra = NULL;
	dispatch_send_error_data(call->conn, call->batch, call->id, &err,
	    extra);
}

/* Finish a pending call with a result; frees the call. */
static void
dispatch_call_reply(struct rpc_call *call, json_t *result)
{
	if (call->conn != NULL)
		conn_call_remove(call->conn, call);
	if (call->id == NULL || (call->conn == NULL && call->batch == NULL))
		json_decref(result);
	else if (call->cancelled)
		dispatch_send_cancelled(call, result, NULL);
	else
		dispatch_send_result(call->conn, call->batch, call->id, result);
	if (call->batch != NULL)
		dispatch_batch_done(call->batch, NULL);
	dispatch_call_free(call);
}

/* Finish a pending call with an error; frees the call. */
static void
dispatch_call_fail(struct rpc_call *call, const sbox_error *err)
{
	if (call->conn != NULL)
		conn_call_remove(call->conn, call);
	if (call->id == NULL || (call->conn == NULL && call->batch == NULL))
		;
	else if (call->cancelled)
		dispatch_send_cancelled(call, NULL, err);
	else
		dispatch_send_error_data(call->conn, call->batch, call->id, err,
		    NULL);
	if (call->batch != NULL)
		dispatch_batch_done(call->batch, NULL);
	dispatch_call_free(call);
}

/* A call lost its client: detach it and tell its owner. */
static void
dispatch_call_orphan(struct rpc_call *call)
{
	if (call->conn != NULL)
		conn_call_remove(call->conn, call);
	call->conn = NULL;
	if (call->cancel_cb != NULL)
		call->cancel_cb(call, call->cancel_arg);
}

/* $/cancelRequest: ask the owner of a pending call to stop it. */
static void
dispatch_cancel(struct conn *c, json_t *params)
{
	struct rpc_call *call;
	json_t *id;

	id = params ? json_object_get(params, "id") : NULL;
	if (id == NULL || (call = conn_call_find(c, id)) == NULL ||
	    call->cancelled)
		return;
	/* the answer will be sbox.Cancelled whoever finishes the call; the
	 * owner stops the work (and may answer at once, freeing the call) */
	call->cancelled = 1;
	if (call->cancel_cb != NULL)
		call->cancel_cb(call, call->cancel_arg);
}

/* Run a method on a checked request. */
static void
dispatch_run(struct conn *c, const struct rpc_method *m, struct envelope *env,
    int *fds, int nfds)
{
	struct rpc_call *call;
	sbox_error err;
	int i;

	if ((call = calloc(1, sizeof *call)) == NULL ||
	    (call->method = strdup(m->name)) == NULL) {
		free(call);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		error_nomem(&err);
		if (env->id)
			dispatch_send_error(c, env->id, &err);
		return;
	}
	call->conn = c;
	call->id = env->id ? json_incref(env->id) : NULL;
	if ((call->batch = dispatch_cur_batch) != NULL)
		call->batch->pending++;
	for (i = 0; i < nfds; i++) {
		if (i < DISPATCH_MAX_FDS)
			call->fds[call->nfds++] = fds[i];
		else
			close(fds[i]);
	}
	conn_call_add(c, call);
	if (m->flags & RPC_STORE_WAIT) {
		/* kept for a try again (the handler may take the fds) */
		call->m = m;
		call->params = json_incref(env->params);
		for (i = 0; i < DISPATCH_MAX_FDS; i++)
			call->spare[i] = i < call->nfds ? fcntl(call->fds[i],
			    F_DUPFD_CLOEXEC, 3) : -1;
	}
	dispatch_handle(call, m, env->params);
}

/* A call waiting for the store was cancelled or lost its client: stop
 * waiting and answer (sbox.Cancelled, or nothing to a gone client). */
static void
dispatch_wait_cancel(struct rpc_call *call, void *arg)
{
	sbox_error err;

	(void)arg;
	error_set(&err, E_CANCELLED, "%s was cancelled while it waited for "
	    "the store", call->method);
	dispatch_call_fail(call, &err);
}

/* The store was locked: put back the fds the handler took and closed,
 * and try again from a timer, or fail once it waited long enough. 0 when
 * a try again is set, -1 when the call is to fail. */
static int
dispatch_wait_store(struct rpc_call *call, const sbox_error *err)
{
	long long now = sboxd_now_ms();
	struct timeval tv;
	int i;

	if (call->m == NULL || strcmp(err->name, E_STORE_BUSY) != 0 ||
	    call->cancelled || call->conn == NULL)
		return -1;
	if (call->wait_since == 0) {
		call->wait_since = now;
		call->wait_step = 10;
		log_info("%s waits for the store: %s", call->method,
		    err->message);
	}
	if (now - call->wait_since >= DISPATCH_STORE_WAIT_MS)
		return -1;
	for (i = 0; i < call->nfds; i++)
		if (call->fds[i] < 0 && call->spare[i] >= 0 &&
		    (call->fds[i] = fcntl(call->spare[i], F_DUPFD_CLOEXEC,
		    3)) < 0)
			return -1;
	if (call->wait_ev == NULL && (call->wait_ev = evtimer_new(sboxd.base,
	    dispatch_wait_cb, call)) == NULL)
		return -1;
	if (!call->told && now - call->wait_since >= DISPATCH_STORE_TELL_MS &&
	    call->id != NULL) {
		call->told = 1;
		conn_notify(call->conn, "command.waiting", json_pack("{s:O, "
		    "s:s, s:s, s:I, s:i}", "id", call->id, "method",
		    call->method, "reason", err->message, "waited_ms",
		    (json_int_t)(now - call->wait_since), "until_ms",
		    DISPATCH_STORE_WAIT_MS));
	}
	tv.tv_sec = 0;
	tv.tv_usec = call->wait_step * 1000;
	if (call->wait_step < DISPATCH_STORE_STEP_MS)
		call->wait_step *= 2;
	if (call->wait_step > DISPATCH_STORE_STEP_MS)
		call->wait_step = DISPATCH_STORE_STEP_MS;
	call->cancel_cb = dispatch_wait_cancel;
	call->cancel_arg = NULL;
	evtimer_add(call->wait_ev, &tv);
	return 0;
}

/* Try a call that waits for the store again. */
static void
dispatch_wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rpc_call *call = arg;

	(void)fd;
	(void)what;
	call->cancel_cb = NULL;
	dispatch_handle(call, call->m, call->params);
}

/* Run a method's handler on a call and answer what it returns (a store
 * locked by another process: try again later, dispatch_wait_store). */
static void
dispatch_handle(struct rpc_call *call, const struct rpc_method *m,
    json_t *params)
{
	json_t *result = NULL;
	sbox_error err;
	int rc;

	int i;

	error_clear(&err);
	call->in_handler = 1;
	rc = m->fn(call, params, &result, &err);
	call->in_handler = 0;
	if (call->freed) {	/* answered from inside its handler */
		dispatch_call_free(call);
		if (rc == 0)
			json_decref(result);
		return;
	}
	if (rc != 0 && rc != RPC_LATER && error_isset(&err) &&
	    dispatch_wait_store(call, &err) == 0)
		return;
	/* done with the store: no copies of the client's fds kept while the
	 * command runs */
	for (i = 0; call->m != NULL && i < call->nfds; i++)
		if (call->spare[i] >= 0) {
			close(call->spare[i]);
			call->spare[i] = -1;
		}
	if (rc == RPC_LATER)
		return;
	if (call->wait_since != 0)
		log_info("%s waited %lld ms for the store", m->name,
		    sboxd_now_ms() - call->wait_since);
	if (rc == 0)
		dispatch_call_reply(call, result);
	else {
		if (!error_isset(&err))
			error_set(&err, E_INTERNAL, "%s failed", m->name);
		dispatch_call_fail(call, &err);
	}
}

/* Handle one parsed request (rc: envelope_parse's answer), with the fds
 * that came with it (closed unless the method takes them). */
static void
dispatch_request(struct conn *c, struct envelope *env, int rc,
    const sbox_error *perr, int *fds, int nfds)
{
	const struct rpc_method *m;
	sbox_error err = *perr;
	int i;

	if (rc == -1) {
		/* Structural errors are answered even without an id; a
		 * well-formed notification with bad params is not answered. */
		if (env->id != NULL || env->method == NULL ||
		    strcmp(err.name, E_INVALID_PARAMS) != 0)
			dispatch_send_error(c, env->id, &err);
		goto out;
	}
	error_clear(&err);
	if (strcmp(env->method, "$/cancelRequest") == 0) {
		if (env->id == NULL) {
			dispatch_cancel(c, env->params);
			goto out;
		}
		error_set_field(&err, E_INVALID_REQUEST, "id",
		    "$/cancelRequest is a notification: send it without an id");
		goto fail;
	}
	if (env->id != NULL && conn_call_find(c, env->id) != NULL) {
		error_set_field(&err, E_INVALID_REQUEST, "id",
		    "a request with this id is still in flight on this "
		    "connection; use a new id");
		goto fail;
	}
	if ((m = dispatch_find(env->method)) == NULL) {
		error_set_field(&err, E_METHOD_NOT_FOUND, "method",
		    "unknown method \"%s\"", env->method);
		goto fail;
	}
	if (conn_sandbox_session(c) != NULL && ((m->flags & RPC_HOST_ONLY) ||
	    !(m->flags & RPC_SANDBOX_OK))) {
		error_set(&err, E_PERMISSION,
		    "%s is not available from inside a sandbox", m->name);
		goto fail;
	}
	if (sboxd.stopping) {
		error_set(&err, E_SHUTTING_DOWN, "sboxd is shutting down");
		goto fail;
	}
	if (conn_inflight(c) >= sboxd.lim.max_inflight) {
		error_set(&err, E_TOO_MANY,
		    "too many requests in flight on this connection (limit %d)",
		    sboxd.lim.max_inflight);
		goto fail;
	}
	if (params_check(m->params, env->params, &err) == -1)
		goto fail;
	dispatch_run(c, m, env, fds, nfds);
	return;
fail:
	if (env->id != NULL)
		dispatch_send_error(c, env->id, &err);
out:
	for (i = 0; i < nfds; i++)
		close(fds[i]);
}

/* A batch (JSON-RPC 2.0): each request runs as if sent alone (they may
 * finish in any order); the replies go back in one array once every request
 * is answered, none when all were notifications. Fds sent with a batch are
 * closed. */
static void
dispatch_batch(struct conn *c, json_t *array)
{
	struct dispatch_batch *b;
	struct envelope env;
	sbox_error err;
	size_t i, n = json_array_size(array);
	int rc;

	if (n == 0 || n > DISPATCH_MAX_BATCH) {
		error_set(&err, E_INVALID_REQUEST, n == 0 ? "an empty batch" :
		    "a batch holds at most %d requests", DISPATCH_MAX_BATCH);
		dispatch_send_error(c, NULL, &err);
		return;
	}
	if ((b = calloc(1, sizeof *b)) == NULL ||
	    (b->replies = json_array()) == NULL) {
		free(b);
		error_nomem(&err);
		dispatch_send_error(c, NULL, &err);
		return;
	}
	b->conn = conn_id(c);
	b->pending = 1;   /* held until every request is dispatched */
	dispatch_cur_batch = b;
	for (i = 0; i < n; i++) {
		/* a request may have closed the connection (a client over its
		 * output limit): no call may be made on it any more */
		if (conn_find(b->conn) != c)
			break;
		error_clear(&err);
		rc = envelope_parse_value(json_incref(json_array_get(array, i)),
		    &env, &err);
		dispatch_request(c, &env, rc, &err, NULL, 0);
		envelope_free(&env);
	}
	dispatch_cur_batch = NULL;
	dispatch_batch_done(b, NULL);
}

/* Handle one received line (with the fds that came with it). */
void
dispatch_line(struct conn *c, char *line, size_t len, int *fds, int nfds)
{
	struct envelope env;
	sbox_error err;
	int i, rc;

	error_clear(&err);
	rc = envelope_parse(line, len, &env, &err);
	if (rc == -1 && json_is_array(env.root)) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		dispatch_batch(c, env.root);
	} else
		dispatch_request(c, &env, rc, &err, fds, nfds);
	envelope_free(&env);
}

/* What the layers under rpc/ (daemon/rpc-call.c) do with a call. */
static const struct rpc_call_ops dispatch_call_ops = {
	.conn = dispatch_call_conn,
	.method = dispatch_call_method,
	.id = dispatch_call_id,
	.nfds = dispatch_call_nfds,
	.take_fd = dispatch_call_take_fd,
	.peek_fd = dispatch_call_peek_fd,
	.on_cancel = dispatch_call_on_cancel,
	.reply = dispatch_call_reply,
	.fail = dispatch_call_fail,
	.orphan = dispatch_call_orphan,
};

/* At start: handle the lines of every connection, and be the calls' code
 * for the layers under rpc/. */
void
dispatch_start(void)
{
	rpc_call_set_ops(&dispatch_call_ops);
	conn_on_line(dispatch_line);
}
