/* proxy-proc.c: sboxd's side of the proxy process: forking it, sending it
 * the sessions, checking and acting on what it sends, restarting it (see
 * proxy-proc.h). */
#include "daemon/proxy/proxy-proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/container/child.h"
#include "daemon/container/container-bind.h"
#include "daemon/log.h"
#include "daemon/proxy/proxy-addr.h"
#include "daemon/proxy/proxy-hosts.h"
#include "daemon/proxy/proxy-jail.h"
#include "daemon/proxy/proxy-main.h"
#include "daemon/proxy/proxy-msg.h"
#include "daemon/proxy/proxy.h"
#include "daemon/sboxd.h"
#include "policy/hostpat.h"
#include "protocol/channel.h"

#define PROXY_PROC_TEXT_MAX   2048   /* host, reason, message from the process */
#define PROXY_PROC_BATCH      256    /* messages handled per wake-up */
#define PROXY_PROC_SOCKBUF    (1024 * 1024)
#define PROXY_PROC_BACKOFF_MS 1000   /* restarts at most this often */

struct proxy_local_fd {
	int fd;
	int port;
};

struct proxy_handle {
	LIST_ENTRY(proxy_handle) link;
	json_int_t        id;
	char             *session;
	char             *profile;
	json_t           *net;
	int               max_conns;
	int               fds[2];
	int               nfds;
	struct proxy_local_fd *locals;
	size_t            n_locals;
	char            **extra;
	size_t            n_extra;
	proxy_refusal_fn  on_refusal;
	proxy_failure_fn  on_failure;
	void             *arg;
	int               count;
};

static LIST_HEAD(, proxy_handle) proxy_proc_handles =
    LIST_HEAD_INITIALIZER(proxy_proc_handles);
static struct event_base *proxy_proc_base;
static struct event *proxy_proc_rd, *proxy_proc_again;
static struct proxy_jail proxy_proc_jail;
static int proxy_proc_sock = -1;
static pid_t proxy_proc_child;
static long long proxy_proc_started_ms;
static json_int_t proxy_proc_next_id;
static int proxy_proc_stopping;

static int proxy_proc_fork(sbox_error *err);

/* The proxy process's end of the socketpair, after the exec. */
#define PROXY_PROC_CHILD_FD 3

extern char **environ;

/* The proxy process's pid, or 0. */
pid_t
proxy_proc_pid(void)
{
	return proxy_proc_child;
}

/* Stop talking to the process: the socket and its event go. */
static void
proxy_proc_disconnect(void)
{
	if (proxy_proc_rd != NULL)
		event_free(proxy_proc_rd);
	proxy_proc_rd = NULL;
	if (proxy_proc_sock >= 0)
		close(proxy_proc_sock);
	proxy_proc_sock = -1;
}

/* The process misbehaved or went away: kill it (its exit restarts it). */
static void
proxy_proc_kill(const char *why)
{
	if (proxy_proc_child > 0 && why != NULL)
		log_error("proxy process (pid %d): %s; restarting it",
		    (int)proxy_proc_child, why);
	proxy_proc_disconnect();
	if (proxy_proc_child > 0)
		kill(proxy_proc_child, SIGKILL);
}

/* Send one message (obj consumed) with fds to the process; a full or
 * broken socket ends the process (it is restarted and told everything). */
static void
proxy_proc_send(json_t *obj, const int *fds, int nfds)
{
	if (obj == NULL) {
		log_error("proxy process: out of memory for a message");
		return;
	}
	if (proxy_proc_sock >= 0 && proxy_msg_send(proxy_proc_sock, obj, fds,
	    nfds) < 0)
		proxy_proc_kill(errno == EAGAIN ? "it does not read its "
		    "messages" : "cannot send it a message");
	json_decref(obj);
}

/* Send a session's proxy, its local forwards and allowed hosts. */
static void
proxy_proc_send_session(struct proxy_handle *h)
{
	size_t i;

	proxy_proc_send(json_pack("{s:s, s:I, s:s, s:s, s:O, s:i}", "type",
	    "session", "id", h->id, "session", h->session, "profile",
	    h->profile, "net", h->net, "max_conns", h->max_conns), h->fds,
	    h->nfds);
	for (i = 0; i < h->n_locals; i++)
		proxy_proc_send(json_pack("{s:s, s:I, s:i}", "type", "local", "id",
		    h->id, "port", h->locals[i].port), &h->locals[i].fd, 1);
	for (i = 0; i < h->n_extra; i++)
		proxy_proc_send(json_pack("{s:s, s:I, s:s}", "type", "allow", "id",
		    h->id, "host", h->extra[i]), NULL, 0);
}

/* The handle with id, or NULL. */
static struct proxy_handle *
proxy_proc_by_id(json_int_t id)
{
	struct proxy_handle *h;

	LIST_FOREACH(h, &proxy_proc_handles, link)
		if (h->id == id)
			return h;
	return NULL;
}

/* A string member of at most PROXY_PROC_TEXT_MAX bytes, or NULL. */
static const char *
proxy_proc_text(const json_t *m, const char *key)
{
	const json_t *v = json_object_get(m, key);

	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) > PROXY_PROC_TEXT_MAX ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* The rule of a refusal, when it is one the proxy gives. */
static const char *
proxy_proc_rule(const char *rule)
{
	static const char *const rules[] = { PROXY_RULE_NETWORK_OFF,
	    PROXY_RULE_ALLOWLIST, PROXY_RULE_ADDRESS, PROXY_RULE_HOST_HEADER };
	size_t i;

	for (i = 0; rule != NULL && i < sizeof rules / sizeof rules[0]; i++)
		if (strcmp(rule, rules[i]) == 0)
			return rules[i];
	return NULL;
}

/* The live handle a message names (*h NULL: its session closed meanwhile,
 * nothing to do); -1 for an id sboxd never gave. */
static int
proxy_proc_handle_of(const json_t *m, struct proxy_handle **h)
{
	json_int_t id = json_integer_value(json_object_get(m, "id"));

	if (id > proxy_proc_next_id)
		return -1;
	*h = proxy_proc_by_id(id);
	return 0;
}

/* refused {id, serial, host, port, reason, rule}: record it, say noted. */
static int
proxy_proc_refused(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	const char *host = proxy_proc_text(m, "host");
	const char *reason = proxy_proc_text(m, "reason");
	const char *rule = proxy_proc_rule(proxy_proc_text(m, "rule"));
	json_int_t serial = json_integer_value(json_object_get(m, "serial"));
	struct proxy_handle *h;

	(void)ctx; (void)fds; (void)nfds; (void)err;
	if (proxy_proc_handle_of(m, &h) < 0 || rule == NULL)
		return -1;
	if (h == NULL)
		return 0;
	if (h->on_refusal != NULL)
		h->on_refusal(h->session, host, (int)json_integer_value(
		    json_object_get(m, "port")), reason, rule, h->arg);
	proxy_proc_send(json_pack("{s:s, s:I, s:I}", "type", "noted", "id",
	    h->id, "serial", serial), NULL, 0);
	return 0;
}

/* failed {id, host, port, cause}: an allowed host could not be reached. */
static int
proxy_proc_failed(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	struct proxy_handle *h;

	(void)ctx; (void)fds; (void)nfds; (void)err;
	if (proxy_proc_handle_of(m, &h) < 0)
		return -1;
	if (h != NULL && h->on_failure != NULL)
		h->on_failure(h->session, proxy_proc_text(m, "host"),
		    (int)json_integer_value(json_object_get(m, "port")),
		    proxy_proc_text(m, "cause"), h->arg);
	return 0;
}

/* hosts? {id, serial, name}: answer from the hosts file as it is now. */
static int
proxy_proc_hosts(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	const char *name = proxy_proc_text(m, "name");
	json_int_t serial = json_integer_value(json_object_get(m, "serial"));
	struct proxy_addr a[16];
	char text[PROXY_ADDR_STRLEN];
	struct proxy_handle *h;
	json_t *addrs;
	size_t i, n;

	(void)ctx; (void)fds; (void)nfds; (void)err;
	if (proxy_proc_handle_of(m, &h) < 0)
		return -1;
	if (h == NULL)
		return 0;
	n = proxy_hosts_lookup(name, a, 16);
	if ((addrs = json_array()) == NULL)
		return 0;
	for (i = 0; i < n; i++) {
		proxy_addr_format(&a[i], text, sizeof text);
		json_array_append_new(addrs, json_string(text));
	}
	proxy_proc_send(json_pack("{s:s, s:I, s:I, s:o}", "type", "hosts", "id",
	    h->id, "serial", serial, "addrs", addrs), NULL, 0);
	return 0;
}

/* count {id, n}: the session's open connections. */
static int
proxy_proc_count(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	struct proxy_handle *h;

	(void)ctx; (void)fds; (void)nfds; (void)err;
	if (proxy_proc_handle_of(m, &h) < 0)
		return -1;
	if (h != NULL)
		h->count = (int)json_integer_value(json_object_get(m, "n"));
	return 0;
}

/* error {id, message}: something about a session failed in the proxy. */
static int
proxy_proc_error(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	struct proxy_handle *h;

	(void)ctx; (void)fds; (void)nfds; (void)err;
	if (proxy_proc_handle_of(m, &h) < 0)
		return -1;
	if (h != NULL)
		log_warn("proxy for session %s: %s", h->session,
		    proxy_proc_text(m, "message"));
	return 0;
}

/* The fields of what the proxy sends (the handlers check the rule and
 * the id's session). */
#define ID     { "id", CHANNEL_INT, 0, 1, INT64_MAX }
#define SERIAL { "serial", CHANNEL_INT, 0, 1, INT64_MAX }
#define TEXT(k) { k, CHANNEL_STR, 0, 1, PROXY_PROC_TEXT_MAX }
#define PORT   { "port", CHANNEL_INT, 0, 0, 65535 }
#define END    { NULL, 0, 0, 0, 0 }
static const struct channel_field proxy_proc_f_refused[] = {
	ID, SERIAL, TEXT("host"), PORT, TEXT("reason"), TEXT("rule"), END };
static const struct channel_field proxy_proc_f_failed[] = {
	ID, TEXT("host"), PORT, TEXT("cause"), END };
static const struct channel_field proxy_proc_f_hosts[] = {
	ID, SERIAL, TEXT("name"), END };
static const struct channel_field proxy_proc_f_count[] = {
	ID, { "n", CHANNEL_INT, 0, 0, 1 << 24 }, END };
static const struct channel_field proxy_proc_f_error[] = {
	ID, TEXT("message"), END };
#undef ID
#undef SERIAL
#undef TEXT
#undef PORT
#undef END

/* What sboxd accepts from its proxy process: the one table. */
static const struct channel_row proxy_proc_rows[] = {
	{ "refused", proxy_proc_refused, CHANNEL_PROXY, 0, 0,
	    proxy_proc_f_refused },
	{ "failed", proxy_proc_failed, CHANNEL_PROXY, 0, 0,
	    proxy_proc_f_failed },
	{ "hosts?", proxy_proc_hosts, CHANNEL_PROXY, 0, 0, proxy_proc_f_hosts },
	{ "count", proxy_proc_count, CHANNEL_PROXY, 0, 0, proxy_proc_f_count },
	{ "error", proxy_proc_error, CHANNEL_PROXY, 0, 0, proxy_proc_f_error },
};
static const struct channel_table proxy_proc_table = {
	"sboxd from the proxy", proxy_proc_rows,
	sizeof proxy_proc_rows / sizeof proxy_proc_rows[0]
};

/* The socketpair is readable: handle a bounded batch of messages. */
static void
proxy_proc_read_cb(evutil_socket_t fd, short what, void *arg)
{
	int fds[PROXY_MSG_FDS], nfds, r, i, k;
	sbox_error err;
	json_t *m;

	(void)what;
	(void)arg;
	for (k = 0; k < PROXY_PROC_BATCH && proxy_proc_sock == fd; k++) {
		r = proxy_msg_recv(fd, &m, fds, &nfds);
		if (r == 0) {
			proxy_proc_kill("its socket closed");
			return;
		}
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			proxy_proc_kill(errno == EBADMSG ? "it sent a malformed "
			    "message" : "cannot read its socket");
			return;
		}
		/* the process sends no descriptors: its table takes none */
		error_clear(&err);
		r = channel_dispatch(&proxy_proc_table, CHANNEL_PROXY, NULL, m,
		    fds, nfds, &err);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		json_decref(m);
		if (r < 0) {
			log_error("%s", err.message);
			proxy_proc_kill("it sent a message it may not send");
			return;
		}
	}
}

/* Start another process (after the back-off). */
static void
proxy_proc_again_cb(evutil_socket_t fd, short what, void *arg)
{
	sbox_error err;

	(void)fd;
	(void)what;
	(void)arg;
	error_clear(&err);
	if (proxy_proc_child == 0 && !proxy_proc_stopping &&
	    proxy_proc_fork(&err) < 0) {
		struct timeval tv = { PROXY_PROC_BACKOFF_MS / 1000, 0 };

		log_error("%s", err.message);
		evtimer_add(proxy_proc_again, &tv);
	}
}

/* The process ended: log it and start another (at most once a second). */
static void
proxy_proc_exited(pid_t pid, int status, void *arg)
{
	struct proxy_handle *h;
	long long ago = sboxd_now_ms() - proxy_proc_started_ms;
	struct timeval tv = { 0, 0 };

	(void)arg;
	if (pid != proxy_proc_child)
		return;
	proxy_proc_child = 0;
	proxy_proc_disconnect();
	LIST_FOREACH(h, &proxy_proc_handles, link)
		h->count = 0;
	if (proxy_proc_stopping)
		return;
	if (WIFSIGNALED(status))
		log_error("proxy process (pid %d) was killed by signal %d; "
		    "restarting it", (int)pid, WTERMSIG(status));
	else
		log_error("proxy process (pid %d) exited with status %d; "
		    "restarting it", (int)pid, WEXITSTATUS(status));
	if (ago >= 0 && ago < PROXY_PROC_BACKOFF_MS)
		tv.tv_usec = (suseconds_t)(PROXY_PROC_BACKOFF_MS - ago) * 1000;
	evtimer_add(proxy_proc_again, &tv);
}

/* In the forked child: run sboxd's own binary again as the proxy process
 * (proxy_main_child), its end of the socketpair as fd 3 and what it needs
 * in PROXY_MAIN_ENV, so that the process that parses the sandboxes' bytes
 * starts from a fresh address space: none of sboxd's memory (sessions,
 * approvals, the database, providers' settings) and none of its
 * environment but the time zone and the sanitizers' options (no locale:
 * its files could not be read in the empty root).
 * Never returns. */
static void
proxy_proc_exec(int sock)
{
	static const char *const keep[] = { "TZ=", "ASAN_OPTIONS=",
	    "UBSAN_OPTIONS=", "LSAN_OPTIONS=", NULL };
	char spec[160], *env[48], *argv[] = { PROXY_JAIL_NAME, NULL };
	size_t n = 0, i, k;

	if (sock != PROXY_PROC_CHILD_FD) {
		if (dup2(sock, PROXY_PROC_CHILD_FD) < 0)
			_exit(3);
		close(sock);
	} else if (fcntl(sock, F_SETFD, 0) < 0)
		_exit(3);
	snprintf(spec, sizeof spec, "%s=%d:%u:%u:%u:%u:%d:%s", PROXY_MAIN_ENV,
	    PROXY_PROC_CHILD_FD, (unsigned)proxy_proc_jail.uid,
	    (unsigned)proxy_proc_jail.gid, (unsigned)proxy_proc_jail.run_uid,
	    (unsigned)proxy_proc_jail.run_gid, proxy_global_limit(),
	    log_level_name());
	env[n++] = spec;
	for (i = 0; environ != NULL && environ[i] != NULL && n + 1 < 48; i++)
		for (k = 0; keep[k] != NULL; k++)
			if (strncmp(environ[i], keep[k], strlen(keep[k])) == 0) {
				env[n++] = environ[i];
				break;
			}
	env[n] = NULL;
	execve("/proc/self/exe", argv, env);
	log_error("proxy process: cannot run sboxd's binary again "
	    "(/proc/self/exe): %s", strerror(errno));
	_exit(3);
}

/* Fork the process and send it every live session. */
static int
proxy_proc_fork(sbox_error *err)
{
	struct proxy_handle *h;
	int sv[2], buf = PROXY_PROC_SOCKBUF, i;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return error_set_errno(err, E_INTERNAL, errno,
		    "proxy process: socketpair");
	for (i = 0; i < 2; i++) {
		if (setsockopt(sv[i], SOL_SOCKET, SO_SNDBUFFORCE, &buf,
		    sizeof buf) < 0)
			setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
		if (setsockopt(sv[i], SOL_SOCKET, SO_RCVBUFFORCE, &buf,
		    sizeof buf) < 0)
			setsockopt(sv[i], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
	}
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return error_set_errno(err, E_INTERNAL, errno,
		    "proxy process: fork");
	}
	if (pid == 0) {
		close(sv[0]);
		proxy_proc_exec(sv[1]);
	}
	close(sv[1]);
	proxy_proc_child = pid;
	proxy_proc_started_ms = sboxd_now_ms();
	if (child_watch(pid, proxy_proc_exited, NULL, err) < 0) {
		kill(pid, SIGKILL);
		child_reap_now(pid, 0);
		proxy_proc_child = 0;
		close(sv[0]);
		return -1;
	}
	evutil_make_socket_nonblocking(sv[0]);
	proxy_proc_sock = sv[0];
	proxy_proc_rd = event_new(proxy_proc_base, sv[0], EV_READ | EV_PERSIST,
	    proxy_proc_read_cb, NULL);
	if (proxy_proc_rd == NULL || event_add(proxy_proc_rd, NULL) < 0) {
		proxy_proc_kill("cannot watch its socket");
		return 0;
	}
	log_info("proxy process started (pid %d)", (int)pid);
	LIST_FOREACH(h, &proxy_proc_handles, link)
		proxy_proc_send_session(h);
	return 0;
}

/* Fork the proxy process (one per daemon). */
int
proxy_proc_start(struct event_base *base, sbox_error *err)
{
	proxy_proc_base = base;
	proxy_proc_stopping = 0;
	proxy_proc_jail.uid = getuid();
	proxy_proc_jail.gid = getgid();
	container_bind_sandbox_ids(&proxy_proc_jail.run_uid,
	    &proxy_proc_jail.run_gid);
	if (proxy_proc_again == NULL &&
	    (proxy_proc_again = evtimer_new(base, proxy_proc_again_cb, NULL)) == NULL)
		return error_nomem(err);
	return proxy_proc_fork(err);
}

/* Free a handle's memory and descriptors. */
static void
proxy_proc_handle_free(struct proxy_handle *h)
{
	size_t i;
	int k;

	for (k = 0; k < h->nfds; k++)
		close(h->fds[k]);
	for (i = 0; i < h->n_locals; i++)
		close(h->locals[i].fd);
	for (i = 0; i < h->n_extra; i++)
		free(h->extra[i]);
	free(h->locals);
	free(h->extra);
	free(h->session);
	free(h->profile);
	json_decref(h->net);
	free(h);
}

/* End the proxy process and forget every session. */
void
proxy_proc_stop(void)
{
	struct proxy_handle *h;
	pid_t pid = proxy_proc_child;

	proxy_proc_stopping = 1;
	proxy_proc_disconnect();
	if (pid > 0) {
		kill(pid, SIGKILL);
		child_reap_now(pid, 1000);
	}
	proxy_proc_child = 0;
	if (proxy_proc_again != NULL)
		event_free(proxy_proc_again);
	proxy_proc_again = NULL;
	while ((h = LIST_FIRST(&proxy_proc_handles)) != NULL) {
		LIST_REMOVE(h, link);
		proxy_proc_handle_free(h);
	}
}

/* A JSON array of a NULL-terminated list. */
static json_t *
proxy_proc_strv(char *const *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && v != NULL && v[i] != NULL; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The network plan as the process reads it. */
static json_t *
proxy_proc_net(const struct plan_net *n)
{
	json_t *res = json_array(), *o;
	size_t i;

	for (i = 0; res != NULL && i < n->n_resolve; i++)
		json_array_append_new(res, json_pack("{s:s, s:o}", "host",
		    n->resolve[i].host, "addrs", proxy_proc_strv(
		    n->resolve[i].addrs)));
	o = json_pack("{s:i, s:o, s:o, s:o, s:o}", "mode", (int)n->mode,
	    "hosts", proxy_proc_strv(n->hosts), "private_hosts",
	    proxy_proc_strv(n->private_hosts), "provider_hosts",
	    proxy_proc_strv(n->provider_hosts), "resolve", res);
	return o;
}

/* A session's proxy in the process. */
struct proxy_handle *
proxy_proc_new(const struct proxy_config *cfg, sbox_error *err)
{
	struct proxy_handle *h;
	char *text;
	size_t i;

	if ((h = calloc(1, sizeof *h)) == NULL) {
		for (i = 0; i < cfg->n_listen_fds; i++)
			close(cfg->listen_fds[i]);
		error_nomem(err);
		return NULL;
	}
	for (i = 0; i < cfg->n_listen_fds; i++) {
		if (h->nfds < 2)
			h->fds[h->nfds++] = cfg->listen_fds[i];
		else
			close(cfg->listen_fds[i]);
	}
	h->id = ++proxy_proc_next_id;
	h->session = strdup(cfg->session != NULL ? cfg->session : "");
	h->profile = strdup(cfg->profile != NULL ? cfg->profile : "");
	h->net = cfg->net != NULL ? proxy_proc_net(cfg->net) : NULL;
	h->max_conns = cfg->limits.max_conns;
	h->on_refusal = cfg->on_refusal;
	h->on_failure = cfg->on_failure;
	h->arg = cfg->arg;
	if (h->session == NULL || h->profile == NULL || h->net == NULL) {
		proxy_proc_handle_free(h);
		error_nomem(err);
		return NULL;
	}
	text = json_dumps(h->net, JSON_COMPACT);
	if (text == NULL || strlen(text) > PROXY_MSG_MAX - 4096) {
		free(text);
		proxy_proc_handle_free(h);
		error_set(err, E_LIMIT, "the session's network plan is too large "
		    "for the proxy");
		return NULL;
	}
	free(text);
	LIST_INSERT_HEAD(&proxy_proc_handles, h, link);
	proxy_proc_send_session(h);
	return h;
}

/* The session ended. */
void
proxy_proc_free(struct proxy_handle *h)
{
	if (h == NULL)
		return;
	LIST_REMOVE(h, link);
	proxy_proc_send(json_pack("{s:s, s:I}", "type", "close", "id", h->id),
	    NULL, 0);
	proxy_proc_handle_free(h);
}

/* Allow one more host pattern. */
int
proxy_proc_allow_host(struct proxy_handle *h, const char *host, sbox_error *err)
{
	char **n;
	size_t i;

	if (hostpat_validate(host, err) < 0)
		return error_context(err, "allow host");
	for (i = 0; i < h->n_extra; i++)
		if (strcasecmp(h->extra[i], host) == 0)
			return 0;
	if ((n = realloc(h->extra, (h->n_extra + 1) * sizeof *n)) == NULL)
		return error_nomem(err);
	h->extra = n;
	if ((h->extra[h->n_extra] = strdup(host)) == NULL)
		return error_nomem(err);
	h->n_extra++;
	proxy_proc_send(json_pack("{s:s, s:I, s:s}", "type", "allow", "id", h->id,
	    "host", host), NULL, 0);
	return 0;
}

/* Was host:port allowed by proxy_proc_allow_host (after the session began)? */
int
proxy_proc_allowed_later(const struct proxy_handle *h, const char *host,
    int port)
{
	struct hostpat p;
	size_t i;

	for (i = 0; h != NULL && host != NULL && i < h->n_extra; i++)
		if (hostpat_parse(h->extra[i], &p, NULL) == 0 &&
		    hostpat_match(&p, host, port))
			return 1;
	return 0;
}

/* Forward connections on listen_fd to 127.0.0.1:port. */
int
proxy_proc_add_local_forward(struct proxy_handle *h, int listen_fd, int port,
    sbox_error *err)
{
	struct proxy_local_fd *n;

	if (port < 1 || port > 65535) {
		close(listen_fd);
		return error_set_field(err, E_INVALID_PARAMS, "local_ports",
		    "port %d is out of range", port);
	}
	if ((n = realloc(h->locals, (h->n_locals + 1) * sizeof *n)) == NULL) {
		close(listen_fd);
		return error_nomem(err);
	}
	h->locals = n;
	h->locals[h->n_locals].fd = listen_fd;
	h->locals[h->n_locals].port = port;
	h->n_locals++;
	proxy_proc_send(json_pack("{s:s, s:I, s:i}", "type", "local", "id", h->id,
	    "port", port), &listen_fd, 1);
	return 0;
}

/* Live client connections of the session's proxy. */
int
proxy_proc_connections(const struct proxy_handle *h)
{
	return h->count;
}
