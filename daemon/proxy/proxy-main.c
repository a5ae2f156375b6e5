/* proxy-main.c: the proxy process's loop: it keeps one proxy (proxy.c) per
 * session sboxd sent, builds each one's network plan from the message,
 * and turns the proxies' refusals, hosts-file questions and connection
 * counts into messages to sboxd (see proxy-msg.h). */
#include "daemon/proxy/proxy-main.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/queue.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>
#include <jansson.h>

#include "daemon/log.h"
#include "daemon/proxy/proxy.h"
#include "daemon/proxy/proxy-addr.h"
#include "daemon/proxy/proxy-int.h"
#include "daemon/proxy/proxy-jail.h"
#include "daemon/proxy/proxy-local.h"
#include "daemon/proxy/proxy-msg.h"
#include "policy/strv.h"
#include "protocol/channel.h"

#define PROXY_MAIN_LIST_MAX 4096   /* entries of one list of a plan */
#define PROXY_MAIN_COUNT_MS 100    /* connection counts go out this often */

struct proxy_main_session {
	LIST_ENTRY(proxy_main_session) link;
	json_int_t       id;
	struct proxy    *px;
	struct plan_net  net;
	int              sent_count;
};

static LIST_HEAD(, proxy_main_session) proxy_main_sessions =
    LIST_HEAD_INITIALIZER(proxy_main_sessions);
static int proxy_main_sock = -1;
static struct event_base *proxy_main_base;
static struct evdns_base *proxy_main_dns;

/* Send one message to sboxd; sboxd gone: end. */
static void
proxy_main_send(json_t *obj)
{
	if (obj == NULL)
		return;
	if (proxy_msg_send(proxy_main_sock, obj, NULL, 0) < 0 &&
	    errno != EMSGSIZE)
		_exit(0);
	json_decref(obj);
}

/* The session with id. */
static struct proxy_main_session *
proxy_main_by_id(json_int_t id)
{
	struct proxy_main_session *s;

	LIST_FOREACH(s, &proxy_main_sessions, link)
		if (s->id == id)
			return s;
	return NULL;
}

/* A proxy refused a request: tell sboxd, which records it and says noted. */
static void
proxy_main_refused(struct proxy *px, unsigned long long serial,
    const char *host, int port, const char *reason, const char *rule,
    void *arg)
{
	struct proxy_main_session *s = arg;

	(void)px;
	proxy_main_send(json_pack("{s:s, s:I, s:I, s:s, s:i, s:s, s:s}",
	    "type", "refused", "id", s->id, "serial", (json_int_t)serial,
	    "host", host, "port", port, "reason", reason, "rule", rule));
}

/* An allowed host could not be reached: tell sboxd the cause. */
static void
proxy_main_failed(const char *session, const char *host, int port,
    const char *cause, void *arg)
{
	struct proxy_main_session *s = arg;

	(void)session;
	proxy_main_send(json_pack("{s:s, s:I, s:s, s:i, s:s}", "type", "failed",
	    "id", s->id, "host", host, "port", port, "cause", cause));
}

/* A proxy needs the hosts file's addresses of name: ask sboxd. */
static void
proxy_main_hosts(struct proxy *px, unsigned long long serial,
    const char *name, void *arg)
{
	struct proxy_main_session *s = arg;

	(void)px;
	proxy_main_send(json_pack("{s:s, s:I, s:I, s:s}", "type", "hosts?",
	    "id", s->id, "serial", (json_int_t)serial, "name", name));
}

/* A NULL-terminated copy of a JSON array of strings; NULL when it is no
 * such array (or too long). */
static char **
proxy_main_strv(const json_t *a)
{
	char **v;
	size_t i, n;

	if (a == NULL)
		return calloc(1, sizeof(char *));
	if (!json_is_array(a) || (n = json_array_size(a)) > PROXY_MAIN_LIST_MAX)
		return NULL;
	if ((v = calloc(n + 1, sizeof *v)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *t = json_string_value(json_array_get(a, i));

		if (t == NULL || (v[i] = strdup(t)) == NULL) {
			strv_free(v);
			return NULL;
		}
	}
	return v;
}

/* Free a plan built by proxy_main_plan. */
static void
proxy_main_plan_free(struct plan_net *n)
{
	size_t i;

	strv_free(n->hosts);
	strv_free(n->private_hosts);
	strv_free(n->provider_hosts);
	for (i = 0; i < n->n_resolve; i++) {
		free(n->resolve[i].host);
		strv_free(n->resolve[i].addrs);
	}
	free(n->resolve);
	memset(n, 0, sizeof *n);
}

/* The network plan of a session message; -1 when malformed. */
static int
proxy_main_plan(const json_t *o, struct plan_net *n)
{
	const json_t *res = json_object_get(o, "resolve");
	json_int_t mode;
	size_t i;

	memset(n, 0, sizeof *n);
	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "mode")))
		return -1;
	mode = json_integer_value(json_object_get(o, "mode"));
	if (mode < PLAN_NET_NONE || mode > PLAN_NET_HOSTS)
		return -1;
	n->mode = (enum plan_network)mode;
	n->hosts = proxy_main_strv(json_object_get(o, "hosts"));
	n->private_hosts = proxy_main_strv(json_object_get(o, "private_hosts"));
	n->provider_hosts = proxy_main_strv(json_object_get(o, "provider_hosts"));
	if (n->hosts == NULL || n->private_hosts == NULL ||
	    n->provider_hosts == NULL)
		goto bad;
	if (res != NULL && (!json_is_array(res) ||
	    json_array_size(res) > PROXY_MAIN_LIST_MAX))
		goto bad;
	if (res != NULL && json_array_size(res) > 0) {
		n->resolve = calloc(json_array_size(res), sizeof *n->resolve);
		if (n->resolve == NULL)
			goto bad;
		for (i = 0; i < json_array_size(res); i++) {
			const json_t *e = json_array_get(res, i);
			const char *h = json_string_value(json_object_get(e, "host"));

			if (h == NULL)
				goto bad;
			n->n_resolve++;
			n->resolve[i].host = strdup(h);
			n->resolve[i].addrs = proxy_main_strv(json_object_get(e,
			    "addrs"));
			if (n->resolve[i].host == NULL || n->resolve[i].addrs == NULL)
				goto bad;
		}
	}
	return 0;
bad:
	proxy_main_plan_free(n);
	return -1;
}

/* Close fds[0..n). */
static void
proxy_main_close_fds(const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* Tell sboxd that something about session id failed. */
static void
proxy_main_error(json_int_t id, const char *msg)
{
	proxy_main_send(json_pack("{s:s, s:I, s:s}", "type", "error", "id", id,
	    "message", msg));
}

/* session {id, session, profile, net, max_conns} + its listening fds
 * (taken: the proxy's, or closed). */
static int
proxy_main_session_new(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *unused)
{
	struct proxy_main_session *s;
	struct proxy_config pc;
	sbox_error err;
	int pc_fds[PROXY_MSG_FDS];
	json_int_t id = json_integer_value(json_object_get(m, "id"));
	int i;

	(void)ctx; (void)unused;
	for (i = 0; i < nfds; i++) {
		pc_fds[i] = fds[i];
		fds[i] = -1;	/* this function's now */
	}
	if (id <= 0 || proxy_main_by_id(id) != NULL ||
	    (s = calloc(1, sizeof *s)) == NULL) {
		proxy_main_close_fds(pc_fds, nfds);
		return 0;
	}
	s->id = id;
	s->sent_count = 0;
	if (proxy_main_plan(json_object_get(m, "net"), &s->net) < 0) {
		proxy_main_close_fds(pc_fds, nfds);
		proxy_main_error(id, "malformed network plan");
		free(s);
		return 0;
	}
	memset(&pc, 0, sizeof pc);
	pc.base = proxy_main_base;
	pc.dns = proxy_main_dns;
	pc.listen_fds = pc_fds;
	pc.n_listen_fds = (size_t)nfds;
	pc.session = json_string_value(json_object_get(m, "session"));
	pc.profile = json_string_value(json_object_get(m, "profile"));
	pc.net = &s->net;
	pc.on_refusal_async = proxy_main_refused;
	pc.on_hosts = proxy_main_hosts;
	pc.on_failure = proxy_main_failed;
	pc.arg = s;
	pc.limits.max_conns = (int)json_integer_value(json_object_get(m,
	    "max_conns"));
	error_clear(&err);
	if ((s->px = proxy_new(&pc, &err)) == NULL) {
		proxy_main_error(id, err.message);
		proxy_main_plan_free(&s->net);
		free(s);
		return 0;
	}
	LIST_INSERT_HEAD(&proxy_main_sessions, s, link);
	return 0;
}

/* close {id}: the session ended. */
static void
proxy_main_session_close(struct proxy_main_session *s)
{
	LIST_REMOVE(s, link);
	proxy_free(s->px);
	proxy_main_plan_free(&s->net);
	free(s);
}

/* hosts {id, serial, addrs[]}: the hosts file's answer. */
static void
proxy_main_hosts_answer(struct proxy_main_session *s, const json_t *m)
{
	struct proxy_addr a[16];
	const json_t *v = json_object_get(m, "addrs");
	size_t i, n = 0;

	for (i = 0; json_is_array(v) && i < json_array_size(v) && n < 16; i++) {
		const char *t = json_string_value(json_array_get(v, i));

		if (t != NULL && proxy_addr_parse(t, &a[n]) == 1)
			n++;
	}
	proxy_hosts_answer(s->px, (unsigned long long)json_integer_value(
	    json_object_get(m, "serial")), a, n);
}

/* The session a message names, or NULL (closed meanwhile: nothing to
 * do). */
static struct proxy_main_session *
proxy_main_of(const json_t *m)
{
	return proxy_main_by_id(json_integer_value(json_object_get(m, "id")));
}

/* local {id, port} + the listening socket inside. */
static int
proxy_main_on_local(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *unused)
{
	struct proxy_main_session *s = proxy_main_of(m);
	sbox_error err;

	(void)ctx; (void)nfds; (void)unused;
	if (s == NULL)
		return 0;
	error_clear(&err);
	if (proxy_add_local_forward(s->px, fds[0], (int)json_integer_value(
	    json_object_get(m, "port")), &err) < 0)
		proxy_main_error(s->id, err.message);
	fds[0] = -1;	/* the forward's, or closed by it */
	return 0;
}

/* allow {id, host}: one more host through the session's proxy. */
static int
proxy_main_on_allow(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *unused)
{
	struct proxy_main_session *s = proxy_main_of(m);
	sbox_error err;

	(void)ctx; (void)fds; (void)nfds; (void)unused;
	error_clear(&err);
	if (s != NULL && proxy_allow_host(s->px, json_string_value(
	    json_object_get(m, "host")), &err) < 0)
		proxy_main_error(s->id, err.message);
	return 0;
}

/* noted {id, serial}: sboxd recorded a refusal; answer the client now. */
static int
proxy_main_on_noted(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *unused)
{
	struct proxy_main_session *s = proxy_main_of(m);

	(void)ctx; (void)fds; (void)nfds; (void)unused;
	if (s != NULL)
		proxy_refusal_noted(s->px, (unsigned long long)
		    json_integer_value(json_object_get(m, "serial")));
	return 0;
}

/* hosts {id, serial, addrs[]}. */
static int
proxy_main_on_hosts(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *unused)
{
	struct proxy_main_session *s = proxy_main_of(m);

	(void)ctx; (void)fds; (void)nfds; (void)unused;
	if (s != NULL)
		proxy_main_hosts_answer(s, m);
	return 0;
}

/* close {id}. */
static int
proxy_main_on_close(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *unused)
{
	struct proxy_main_session *s = proxy_main_of(m);

	(void)ctx; (void)fds; (void)nfds; (void)unused;
	if (s != NULL)
		proxy_main_session_close(s);
	return 0;
}

#define ID     { "id", CHANNEL_INT, 0, 1, INT64_MAX }
#define SERIAL { "serial", CHANNEL_INT, 0, 1, INT64_MAX }
#define END    { NULL, 0, 0, 0, 0 }
static const struct channel_field proxy_main_f_session[] = {
	ID, { "session", CHANNEL_STR, 0, 1, 256 },
	{ "profile", CHANNEL_STR, 0, 1, 4096 },
	{ "net", CHANNEL_OBJECT, 0, 0, 0 },
	{ "max_conns", CHANNEL_INT, 0, 0, INT_MAX }, END };
static const struct channel_field proxy_main_f_local[] = {
	ID, { "port", CHANNEL_INT, 0, 1, 65535 }, END };
static const struct channel_field proxy_main_f_allow[] = {
	ID, { "host", CHANNEL_STR, 0, 1, 4096 }, END };
static const struct channel_field proxy_main_f_hosts[] = {
	ID, SERIAL, { "addrs", CHANNEL_STRV, 0, 0, 1024 }, END };
static const struct channel_field proxy_main_f_noted[] = { ID, SERIAL, END };
static const struct channel_field proxy_main_f_close[] = { ID, END };
#undef ID
#undef SERIAL
#undef END

/* What the proxy accepts from sboxd: the one table. */
static const struct channel_row proxy_main_rows[] = {
	{ "session", proxy_main_session_new, CHANNEL_SBOXD, 0, PROXY_MSG_FDS,
	    proxy_main_f_session },
	{ "local", proxy_main_on_local, CHANNEL_SBOXD, 1, 1,
	    proxy_main_f_local },
	{ "allow", proxy_main_on_allow, CHANNEL_SBOXD, 0, 0,
	    proxy_main_f_allow },
	{ "noted", proxy_main_on_noted, CHANNEL_SBOXD, 0, 0,
	    proxy_main_f_noted },
	{ "hosts", proxy_main_on_hosts, CHANNEL_SBOXD, 0, 0,
	    proxy_main_f_hosts },
	{ "close", proxy_main_on_close, CHANNEL_SBOXD, 0, 0,
	    proxy_main_f_close },
};
static const struct channel_table proxy_main_table = {
	"the proxy from sboxd", proxy_main_rows,
	sizeof proxy_main_rows / sizeof proxy_main_rows[0]
};

/* One message from sboxd: to its row, or dropped with its descriptors
 * (the reason sent back to sboxd's log when it names a session). */
static void
proxy_main_message(json_t *m, int *fds, int nfds)
{
	json_int_t id = json_integer_value(json_object_get(m, "id"));
	sbox_error err;
	int i;

	error_clear(&err);
	if (channel_dispatch(&proxy_main_table, CHANNEL_SBOXD, NULL, m, fds,
	    nfds, &err) < 0 && id > 0)
		proxy_main_error(id, err.message);
	for (i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Readable socketpair: handle every queued message; EOF: sboxd is gone. */
static void
proxy_main_read_cb(evutil_socket_t fd, short what, void *arg)
{
	int fds[PROXY_MSG_FDS], nfds, r;
	json_t *m;

	(void)what;
	(void)arg;
	for (;;) {
		r = proxy_msg_recv(fd, &m, fds, &nfds);
		if (r == 0)
			_exit(0);
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EBADMSG)
				continue;
			_exit(1);
		}
		proxy_main_message(m, fds, nfds);
		json_decref(m);
	}
}

/* Every PROXY_MAIN_COUNT_MS: send the connection counts that changed. */
static void
proxy_main_count_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_main_session *s;

	(void)fd;
	(void)what;
	(void)arg;
	LIST_FOREACH(s, &proxy_main_sessions, link) {
		int n = proxy_connections(s->px);

		if (n == s->sent_count)
			continue;
		s->sent_count = n;
		proxy_main_send(json_pack("{s:s, s:I, s:i}", "type", "count", "id",
		    s->id, "n", n));
	}
}

/* Run the proxy process; never returns. */
void
proxy_main_run(int sock, const struct proxy_jail *jail)
{
	struct timeval tick = { 0, PROXY_MAIN_COUNT_MS * 1000 };
	struct event *rd, *count;
	struct event_config *cfg;
	sbox_error err;
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	proxy_jail_name();
	if ((proxy_main_sock = proxy_jail_fds(sock)) < 0)
		_exit(3);
	error_clear(&err);
	/* epoll with a change list: a connection's many enable/disable
	 * steps within one loop pass become at most one epoll_ctl per fd */
	if ((cfg = event_config_new()) != NULL)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	proxy_main_base = cfg != NULL ? event_base_new_with_config(cfg) : NULL;
	if (cfg != NULL)
		event_config_free(cfg);
	if (proxy_main_base == NULL && (proxy_main_base = event_base_new()) == NULL)
		_exit(3);
	proxy_main_dns = evdns_base_new(proxy_main_base,
	    EVDNS_BASE_DISABLE_WHEN_INACTIVE);
	if (proxy_main_dns != NULL)
		evdns_base_resolv_conf_parse(proxy_main_dns, DNS_OPTIONS_ALL &
		    ~DNS_OPTION_HOSTSFILE, "/etc/resolv.conf");
	if (proxy_local_start(proxy_main_base, &err) == -1)
		log_warn("%s", err.message);
	proxy_tunnel_init();   /* the relay's splice pipe */
	/* the log's strftime calls tzset, which reads /etc/localtime the
	 * first time: read it now, while there are files */
	tzset();
	/* what a library seeds on first use from /dev/urandom or getrandom
	 * (jansson's hash seed, the resolver's transaction ids): now, before
	 * the allow list */
	json_object_seed(0);
	if (evutil_secure_rng_init() == -1)
		_exit(3);
	if (proxy_jail_enter(jail, &err) < 0 || proxy_jail_seccomp(&err) < 0) {
		log_error("%s", err.message);
		_exit(3);
	}
	rd = event_new(proxy_main_base, proxy_main_sock, EV_READ | EV_PERSIST,
	    proxy_main_read_cb, NULL);
	count = event_new(proxy_main_base, -1, EV_PERSIST, proxy_main_count_cb,
	    NULL);
	if (rd == NULL || count == NULL || event_add(rd, NULL) < 0 ||
	    event_add(count, &tick) < 0)
		_exit(3);
	event_base_dispatch(proxy_main_base);
	_exit(0);
}

/* When sboxd's binary was run again as the proxy process (PROXY_MAIN_ENV
 * set): take what sboxd passed and run it (never returns); otherwise
 * return at once. */
void
proxy_main_child(void)
{
	const char *spec = getenv(PROXY_MAIN_ENV);
	struct proxy_jail jail;
	unsigned int uid, gid, ruid, rgid;
	char level[16];
	int fd, limit;

	if (spec == NULL)
		return;
	if (sscanf(spec, "%d:%u:%u:%u:%u:%d:%15[a-z]", &fd, &uid, &gid, &ruid,
	    &rgid, &limit, level) != 7 || fd < 3) {
		fprintf(stderr, "sboxd: proxy process: bad %s\n", PROXY_MAIN_ENV);
		_exit(3);
	}
	unsetenv(PROXY_MAIN_ENV);
	(void)log_set_level(level);
	proxy_set_global_limit(limit);
	memset(&jail, 0, sizeof jail);
	jail.uid = (uid_t)uid;
	jail.gid = (gid_t)gid;
	jail.run_uid = (uid_t)ruid;
	jail.run_gid = (gid_t)rgid;
	proxy_main_run(fd, &jail);
}
