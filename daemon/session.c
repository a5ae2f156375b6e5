/* session.c: the registry of live sessions: create (resolve, plan, start the
 * container and the proxy), describe, close, and recover after a crash. */
#define _XOPEN_SOURCE 700
#include "daemon/session.h"
#include "daemon/exclude.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/approval.h"
#include "daemon/cachedir.h"
#include "daemon/command.h"
#include "daemon/container.h"
#include "daemon/diskguard.h"
#include "daemon/container-bind.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/proxy-proc.h"
#include "daemon/rmtree.h"
#include "daemon/toolconf.h"
#include "policy/guard.h"
#include "daemon/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session-provider.h"
#include "daemon/shape.h"
#include "policy/policy.h"
#include "policy/render-bwrap.h"
#include "policy/strv.h"
#include "store/store.h"

struct session_waiter {
	struct rpc_call       *call;
	struct session_waiter *next;
};

static TAILQ_HEAD(, session) session_list = TAILQ_HEAD_INITIALIZER(session_list);
static int session_live;

/* Number of live sessions. */
int
session_count(void)
{
	return session_live;
}

/* Find a live session by id; a session that is not live but recorded in
 * the store (closed, by a client or before a restart) is sbox.SessionClosed,
 * an id never seen sbox.SessionNotFound. */
struct session *
session_find(const char *id, sbox_error *err)
{
	struct session *s;
	sbox_error e2;
	json_t *rec;

	TAILQ_FOREACH(s, &session_list, entry) {
		if (strcmp(s->id, id) == 0 && s->state != SESSION_CLOSED)
			return s;
	}
	if (err == NULL)
		return NULL;
	error_clear(&e2);
	rec = sboxd.store ? store_session_get(sboxd.store, id, &e2) : NULL;
	if (rec != NULL)
		error_set_field(err, E_SESSION_CLOSED, "session",
		    "session %s is closed", id);
	else
		error_set_field(err, E_SESSION_NOT_FOUND, "session",
		    "no live session %s", id);
	json_decref(rec);
	return NULL;
}

/* The session after s in the list (the first when s is NULL), or NULL. */
struct session *
session_next(const struct session *s)
{
	return s == NULL ? TAILQ_FIRST(&session_list) : TAILQ_NEXT(s, entry);
}

/* A new random session id: 16 hex characters. */
static void
session_new_id(char out[17])
{
	unsigned char b[8];
	size_t i;

	if (getrandom(b, sizeof b, 0) != sizeof b) {
		long long t = sboxd_now_ms() ^ ((long long)getpid() << 20);
		memcpy(b, &t, sizeof b);
	}
	for (i = 0; i < sizeof b; i++)
		snprintf(out + i * 2, 3, "%02x", b[i]);
}

/* Where the sessions' scratch folders and recovery notes live. */
static char *
session_path(const char *kind, const char *id)
{
	char *out;

	if (strcmp(kind, "scratch") == 0) {
		/* beside the state folder; the whole folder is hidden from every
		 * sandbox (each session's own scratch is bound again over the
		 * hide), so no grant of another session reaches it */
		char *copy = strdup(sboxd.state_dir), *slash;
		if (copy == NULL)
			return NULL;
		slash = strrchr(copy, '/');
		if (slash != NULL && slash != copy)
			*slash = '\0';
		if (asprintf(&out, "%s/sbox-scratch%s%s", copy, id ? "/" : "",
		    id ? id : "") == -1)
			out = NULL;
		free(copy);
		return out;
	}
	if (asprintf(&out, "%s/sessions%s%s%s", sboxd.state_dir, id ? "/" : "",
	    id ? id : "", id ? ".json" : "") == -1)
		return NULL;
	return out;
}

/* Write the note that lets the next start clean up after a crash. */
static void
session_write_note(struct session *s)
{
	char *dir = session_path("notes", NULL), *path = session_path("notes",
	    s->id);
	json_t *note;

	if (dir != NULL && path != NULL) {
		mkdir(dir, 0700);
		note = json_pack("{s:s}", "scratch", s->scratch);
		if (json_dump_file(note, path, JSON_COMPACT) == -1)
			log_warn("cannot write %s", path);
		json_decref(note);
	}
	free(dir);
	free(path);
}

/* The session as JSON. */
json_t *
session_to_json(const struct session *s)
{
	static const char *states[] = { "starting", "ready", "closing", "closed" };
	struct command *c;
	int running = 0;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state == COMMAND_RUNNING)
			running++;
	}
	json_t *j;

	j = json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:b, s:s, s:s?, s:s?, "
	    "s:s?, s:s?, s:i, s:i, s:i, s:o}",
	    "session", s->id, "title", s->title, "project", s->project,
	    "scratch", s->scratch, "profile", s->profile->name,
	    "provenance", s->profile->provenance ? s->profile->provenance : "",
	    "sandboxed", s->plan->sandboxed, "state", states[s->state],
	    "provider", s->provider, "model", s->model, "space", s->space,
	    "parent", s->parent, "running", running,
	    "container_pid", s->ct ? (int)container_pid(s->ct) : 0,
	    "proxy_port", s->ct ? container_proxy_port(s->ct) : 0,
	    "network", json_string(profile_network_name(s->profile->network)));
	if (j != NULL)
		shape_time(j, "created", s->created_ms);
	return j;
}

/* Free a session's memory (it is out of the list). */
static void
session_free(struct session *s)
{
	free(s->title);
	free(s->project);
	free(s->scratch);
	free(s->provider);
	free(s->model);
	free(s->space);
	free(s->parent);
	if (s->project_fd >= 0)
		close(s->project_fd);
	profile_free(s->profile);
	if (s->plan)
		plan_free(s->plan);
	strv_free(s->env);
	json_decref(s->refused);
	json_decref(s->env_dropped);
	session_gitcfg_free(s);
	strv_free(s->home_moved);
	free(s);
}

/* The names of the client's env that the sandbox does not get (the one
 * rule: PATH, LANG, LANGUAGE, LC_*, TERM, COLORTERM, TZ and the names the
 * profile lists in "env"; HOME, USER, LOGNAME and TMPDIR are sbox's own),
 * sorted, kept in s->env_dropped. */
static void
session_env_dropped(struct session *s, json_t *client_env)
{
	const char *k;
	json_t *v;
	size_t i, n;
	int found;

	s->env_dropped = json_array();
	json_object_foreach(client_env, k, v) {
		found = 0;
		n = strlen(k);
		for (i = 0; s->plan->env != NULL && s->plan->env[i] != NULL; i++)
			if (strncmp(s->plan->env[i], k, n) == 0 &&
			    s->plan->env[i][n] == '=')
				found = 1;
		if (!found)
			json_array_append_new(s->env_dropped, json_string(k));
	}
	n = json_array_size(s->env_dropped);
	for (i = 1; i < n; i++) {	/* insertion sort: a few dozen names */
		size_t j = i;
		while (j > 0 && strcmp(json_string_value(json_array_get(
		    s->env_dropped, j - 1)), json_string_value(json_array_get(
		    s->env_dropped, j))) > 0) {
			json_t *a = json_incref(json_array_get(s->env_dropped, j - 1));
			json_array_set(s->env_dropped, j - 1,
			    json_array_get(s->env_dropped, j));
			json_array_set_new(s->env_dropped, j, a);
			j--;
		}
	}
}

/* The answer of session.create: the session, env_dropped, and warnings (one
 * line naming the dropped variables, when there are). */
static json_t *
session_created_json(const struct session *s)
{
	json_t *j = session_to_json(s), *v, *w;
	char line[2048];
	size_t i, n = 0;

	if (j == NULL)
		return j;
	/* names the config does not know, what its provider's home lost */
	w = session_provider_warnings(s->provider, s->model, s->space);
	session_provider_moved_warnings(w, s->provider, s->home_moved);
	if (json_array_size(s->env_dropped) > 0) {
		n = (size_t)snprintf(line, sizeof line, "env: not passed into the "
		    "sandbox (profile %s takes PATH, LANG, LANGUAGE, LC_*, TERM, "
		    "COLORTERM, TZ and the names in its \"env\"):",
		    s->profile->name);
		json_array_foreach(s->env_dropped, i, v)
			if (n < sizeof line)
				n += (size_t)snprintf(line + n, sizeof line - n, "%s %s",
				    i ? "," : "", json_string_value(v));
		json_array_append_new(w, json_string(line));
	}
	json_object_set(j, "env_dropped", s->env_dropped ? s->env_dropped :
	    json_array());
	json_object_set_new(j, "warnings", w);
	return j;
}

/* Answer every session.create waiting for this session. */
static void
session_answer(struct session *s, const sbox_error *err)
{
	struct session_waiter *w;

	while ((w = s->waiters) != NULL) {
		s->waiters = w->next;
		if (err != NULL)
			rpc_call_fail(w->call, err);
		else
			rpc_call_reply(w->call, session_created_json(s));
		free(w);
	}
}

static void session_close_now(struct session *s, const char *reason, int sync);

/* Close the sessions created from inside s (they live in its sandbox). */
static void
session_close_children(struct session *s, int sync)
{
	struct session *c;
	int again = 1;

	while (again) {
		again = 0;
		TAILQ_FOREACH(c, &session_list, entry) {
			if (c->parent != NULL && strcmp(c->parent, s->id) == 0 &&
			    c->state < SESSION_CLOSING) {
				session_close_now(c, "its parent session closed",
				    sync);
				again = 1;
				break;
			}
		}
	}
}

/* Close a session: every process ends, nothing of it stays on the host. */
static void
session_close_now(struct session *s, const char *reason, int sync)
{
	sbox_error err;
	char *note;

	if (s->state == SESSION_CLOSED || s->state == SESSION_CLOSING)
		return;
	s->state = SESSION_CLOSING;
	session_close_children(s, sync);
	approval_session_closed(s);
	command_session_closed(s);
	conn_close_session(s->id);
	if (s->proxy != NULL) {
		proxy_proc_free(s->proxy);
		s->proxy = NULL;
	}
	if (s->ct != NULL) {
		if (sync)
			container_destroy(s->ct);
		else
			container_close(s->ct, NULL, NULL);
		s->ct = NULL;
	}
	rmtree(s->scratch);
	if ((note = session_path("notes", s->id)) != NULL) {
		unlink(note);
		free(note);
	}
	error_clear(&err);
	if (store_session_set_state(sboxd.store, s->id, "closed", reason,
	    &err) == -1 && strcmp(err.name, E_SESSION_CLOSED) != 0)
		log_error("recording the end of session %s: %s", s->id,
		    err.message);
	s->state = SESSION_CLOSED;
	error_set(&err, E_SESSION_CLOSED, "session %s was closed before it was "
	    "ready (%s)", s->id, reason);
	session_answer(s, &err);
	events_publish("session.closed", s->id, json_pack("{s:s}", "reason",
	    reason));
	log_info("session %s closed (%s)", s->id, reason);
	TAILQ_REMOVE(&session_list, s, entry);
	session_live--;
	session_free(s);
}

/* Close a session, recording why. */
void
session_close(struct session *s, const char *reason)
{
	session_close_now(s, reason, 0);
}

/* Close every live session at once (daemon shutdown). */
void
session_close_all(const char *reason)
{
	struct session *s;

	while ((s = TAILQ_FIRST(&session_list)) != NULL)
		session_close_now(s, reason, 1);
}

/* The container ended by itself (killed from outside, init died). */
static void
session_ct_dead(struct container *ct, const sbox_error *why, void *arg)
{
	struct session *s = arg;

	(void)ct;
	log_warn("session %s: its sandbox ended: %s", s->id,
	    why ? why->message : "unknown reason");
	session_close_now(s, "the sandbox ended unexpectedly", 0);
}

/* sbox-init made a listener for one of the profile's local ports. */
static void
session_local_port_cb(struct container *ct, const int *fds, int nfds,
    const sbox_error *err, void *arg)
{
	struct session *s = arg;
	sbox_error e2;
	int i;

	(void)ct;
	if (err != NULL) {
		log_error("session %s: local port: %s", s->id, err->message);
		return;
	}
	for (i = 0; i < nfds; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;
		int port = 0;
		if (getsockname(fds[i], (struct sockaddr *)&ss, &len) == 0)
			port = ntohs(ss.ss_family == AF_INET ?
			    ((struct sockaddr_in *)&ss)->sin_port :
			    ((struct sockaddr_in6 *)&ss)->sin6_port);
		if (s->proxy == NULL || proxy_proc_add_local_forward(s->proxy, fds[i],
		    port, &e2) == -1) {
			if (s->proxy != NULL)
				log_error("session %s: %s", s->id, e2.message);
			else
				close(fds[i]);
		}
	}
}

/* The container is ready (or failed): start the proxy, answer the callers. */
static void
session_ct_ready(struct container *ct, const sbox_error *cerr, void *arg)
{
	struct session *s = arg;
	struct proxy_config pc;
	const char *fam[2];
	sbox_error err;
	int fds[2], n;
	size_t i;

	error_clear(&err);
	if (cerr != NULL) {
		err = *cerr;
		goto fail;
	}
	n = container_take_proxy_fds(ct, fds, fam);
	memset(&pc, 0, sizeof pc);
	pc.base = sboxd.base;
	pc.dns = sboxd.dns;
	pc.listen_fds = fds;
	pc.n_listen_fds = (size_t)n;
	pc.session = s->id;
	pc.profile = s->profile->name;
	pc.net = &s->plan->net;
	pc.on_refusal = session_access_host_refused;
	pc.arg = s;
	pc.limits.max_conns = sboxd.lim.proxy_max_conns;
	if ((s->proxy = proxy_proc_new(&pc, &err)) == NULL) {
		error_context(&err, "starting the session's proxy");
		goto fail;
	}
	for (i = 0; i < s->plan->net.n_local_ports; i++) {
		if (container_listen_local(ct, s->plan->net.local_ports[i],
		    session_local_port_cb, s, &err) == -1) {
			error_context(&err, "local port %d",
			    s->plan->net.local_ports[i]);
			goto fail;
		}
	}
	session_write_note(s);
	s->state = SESSION_READY;
	if (store_session_set_state(sboxd.store, s->id, "ready", NULL, &err) == -1)
		log_error("session %s: %s", s->id, err.message);
	log_info("session %s ready in %lld ms (profile %s)", s->id,
	    container_start_ms(ct), s->profile->name);
	events_publish("session.ready", s->id, json_pack("{s:s, s:s, s:b}",
	    "profile", s->profile->name, "project", s->project, "sandboxed", 1));
	session_answer(s, NULL);
	return;
fail:
	log_error("session %s could not start: %s", s->id, err.message);
	session_answer(s, &err);
	store_session_set_state(sboxd.store, s->id, "failed", err.message, NULL);
	s->state = SESSION_CLOSING;
	if (s->proxy) {
		proxy_proc_free(s->proxy);
		s->proxy = NULL;
	}
	container_close(ct, NULL, NULL);
	s->ct = NULL;
	rmtree(s->scratch);
	TAILQ_REMOVE(&session_list, s, entry);
	session_live--;
	session_free(s);
}

/* The client's environment object as "N=V" strings. */
static char **
session_client_env(json_t *env)
{
	char **out = NULL, *kv;
	const char *k;
	json_t *v;

	if (env == NULL)
		return NULL;
	json_object_foreach(env, k, v) {
		if (!json_is_string(v) || k[0] == '\0' || strchr(k, '=') != NULL)
			continue;
		if (asprintf(&kv, "%s=%s", k, json_string_value(v)) == -1 ||
		    strv_push(&out, kv) == -1)
			break;
	}
	return out;
}

/* Set NAME=VALUE in an environment vector (replacing an earlier NAME). */
static int
session_setenv(char ***env, const char *name, const char *value)
{
	size_t n = strlen(name);
	char *kv, **e;

	if (asprintf(&kv, "%s=%s", name, value) == -1)
		return -1;
	for (e = *env; e && *e; e++) {
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
			free(*e);
			*e = kv;
			return 0;
		}
	}
	return strv_push(env, kv);
}

/* The base environment of the session's commands: the plan's, plus the
 * proxy variables for a sandbox (its only way out). */
static int
session_make_env(struct session *s, sbox_error *err)
{
	static const char *proxy_vars[] = { "HTTP_PROXY", "HTTPS_PROXY",
	    "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", NULL };
	char url[64];
	int ok = 1, i;

	s->env = strv_copy(s->plan->env, &ok);
	if (!ok)
		return error_nomem(err);
	if (!s->plan->sandboxed)
		return 0;
	snprintf(url, sizeof url, "http://127.0.0.1:%d", RENDER_BWRAP_PROXY_PORT);
	for (i = 0; proxy_vars[i] != NULL; i++) {
		if (session_setenv(&s->env, proxy_vars[i], url) == -1)
			return error_nomem(err);
	}
	if (session_setenv(&s->env, "NO_PROXY", "localhost,127.0.0.1,::1") == -1 ||
	    session_setenv(&s->env, "no_proxy", "localhost,127.0.0.1,::1") == -1)
		return error_nomem(err);
	return 0;
}

/* The protected names: the data file (fail closed when there is none),
 * then the config's additions. */
static int
session_protected(struct guard_table *t, sbox_error *err)
{
	const char *file = guard_table_file(toolconf_protected_file());

	memset(t, 0, sizeof *t);
	if (file == NULL)
		return error_set(err, E_SANDBOX_SETUP, "no protected-names file: "
		    "install sbox (PREFIX/share/sbox/protected), or set "
		    "SBOX_PROTECTED_FILE");
	if (guard_table_load(t, file, err) < 0 ||
	    guard_table_copy(t, sboxd.config ? sboxd.config->protected : NULL,
	    err) < 0) {
		guard_table_free(t);
		return error_context(err, "the protected names");
	}
	return 0;
}

/* Build the plan of a new session. */
static int
session_make_plan(struct session *s, const struct session_params *p,
    sbox_error *err)
{
	const char *sbox_paths[5];
	char *scratch_base;
	struct plan_context ctx;
	struct passwd *pw = getpwuid(getuid());
	char **client_env = session_client_env(p->env), *sockdir, *slash;
	char **registries = NULL, *cache_root = NULL, *phome = NULL;
	struct session *parent;
	uid_t cuid;
	gid_t cgid;
	struct guard_table prot = { 0 };
	const char *home = getenv("HOME");
	const char *xdg = p->env ? json_string_value(json_object_get(p->env,
	    "XDG_RUNTIME_DIR")) : NULL;

	if (home == NULL || home[0] != '/')
		home = pw ? pw->pw_dir : "/";
	sockdir = strdup(sboxd.socket_path);
	if (sockdir && (slash = strrchr(sockdir, '/')) != NULL && slash != sockdir)
		*slash = '\0';
	scratch_base = session_path("scratch", NULL);
	sbox_paths[0] = sboxd.config_path;
	sbox_paths[1] = sboxd.state_dir;
	sbox_paths[2] = sockdir;
	sbox_paths[3] = scratch_base;	/* every session's scratch */
	sbox_paths[4] = NULL;
	memset(&ctx, 0, sizeof ctx);
	ctx.project = s->project;
	ctx.scratch = s->scratch;
	ctx.home = home;
	ctx.user = pw ? pw->pw_name : "user";
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.is_root = geteuid() == 0;
	ctx.sbox_paths = sbox_paths;
	ctx.xdg_runtime_dir = xdg ? xdg : getenv("XDG_RUNTIME_DIR");
	ctx.env = client_env;
	/* sbox's own caches of the profile (a child: its parent's), owned by
	 * the uid the sandbox runs as (a root sboxd's is not root) */
	parent = s->parent ? session_find(s->parent, NULL) : NULL;
	cuid = getuid();
	cgid = getgid();
	if (geteuid() == 0)
		container_bind_sandbox_ids(&cuid, &cgid);
	if (cachedir_session_root(sboxd.state_dir, s->profile, s->project,
	    parent ? parent->plan : NULL, cuid, cgid, &cache_root, err) == -1) {
		strv_free(client_env);
		free(sockdir);
		free(scratch_base);
		return -1;
	}
	ctx.cache_root = cache_root;
	if (toolconf_registries(home, client_env, &registries, err) == -1) {
		free(cache_root);
		strv_free(client_env);
		free(sockdir);
		free(scratch_base);
		return error_context(err, "registry hosts");
	}
	ctx.registry_hosts = registries;
	ctx.hostname = "sbox";
	if (session_provider_home(s->profile, &phome, err) == -1) {
		free(cache_root);
		strv_free(registries);
		strv_free(client_env);
		free(sockdir);
		free(scratch_base);
		return -1;
	}
	ctx.provider_home = phome;
	if (s->parent != NULL && (parent = session_find(s->parent, NULL)) !=
	    NULL && parent->plan->sandboxed) {
		ctx.inherit = parent->plan->rules;
		ctx.n_inherit = parent->plan->n_rules;
	}
	if (s->profile->sandboxed && session_protected(&prot, err) < 0) {
		free(cache_root);
		free(phome);
		strv_free(registries);
		strv_free(client_env);
		free(sockdir);
		free(scratch_base);
		return -1;
	}
	ctx.protected = &prot;
	/* what a sandbox left in its provider's home that cannot be bound */
	session_provider_aside(s->profile, phome, home, &prot, &s->home_moved);
	ctx.no_read_reports = sboxd.config != NULL && !sboxd.config->report_reads;
	s->plan = policy_plan(s->profile, &ctx, err);
	if (s->plan != NULL && session_gitcfg_start(s, err) < 0) {
		plan_free(s->plan);
		s->plan = NULL;
	}
	guard_table_free(&prot);
	free(cache_root);
	free(phome);
	strv_free(registries);
	strv_free(client_env);
	free(sockdir);
	free(scratch_base);
	return s->plan ? 0 : -1;
}

/* Insert the new session in the store (state starting). */
static int
session_record(struct session *s, uid_t uid, sbox_error *err)
{
	struct store_session ss = {
		.id = s->id, .title = s->title, .project = s->project,
		.profile = s->profile->name, .provider = s->provider,
		.model = s->model, .space = s->space, .parent = s->parent,
		.state = "starting", .creator_uid = uid,
	};
	json_t *prov;
	int rc;

	/* provider values stay in memory: the store says "(set)" */
	ss.resolved_profile = profile_to_json_public(s->profile);
	prov = json_pack("{s:s}", "summary", s->profile->provenance ?
	    s->profile->provenance : "");
	ss.provenance = prov;
	rc = store_session_insert(sboxd.store, &ss, err);
	json_decref(ss.resolved_profile);
	json_decref(prov);
	return rc;
}

/* Start the session's container; the callers wait for it. */
static int
session_start_container(struct session *s, sbox_error *err)
{
	struct container_opts o;

	memset(&o, 0, sizeof o);
	o.base = sboxd.base;
	o.bwrap_path = sboxd.bwrap_path;
	o.init_path = sboxd.init_path;
	o.on_ready = session_ct_ready;
	o.on_dead = session_ct_dead;
	o.on_refused = session_access_file_refused;
	o.on_exclude = exclude_from_inside;
	o.arg = s;
	o.held_path = s->project;
	o.held_fd = s->project_fd;
	if (geteuid() == 0) {	/* never host uid 0 inside */
		o.drop_ids = 1;
		container_bind_sandbox_ids(&o.run_uid, &o.run_gid);
	}
	if ((s->ct = container_start(s->plan, &o, err)) == NULL)
		return -1;
	return 0;
}

/* Create a session. */
int
session_create(const struct session_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err)
{
	char real[PATH_MAX];
	struct session *s;
	struct stat st;

	if (session_live >= sboxd.lim.max_sessions)
		return error_set(err, E_LIMIT, "sboxd already runs %d sessions "
		    "(its limit); close some first", session_live);
	if (session_access_budget(p->parent, err) == -1 ||
	    diskguard_check(NULL, err) == -1)
		return -1;
	if (p->project == NULL || p->project[0] != '/')
		return error_set_field(err, E_INVALID_PARAMS, "project",
		    "project must be an absolute folder path");
	if (realpath(p->project, real) == NULL || stat(real, &st) == -1 ||
	    !S_ISDIR(st.st_mode))
		return error_set_field(err, E_INVALID_PARAMS, "project",
		    "project folder %s does not exist", p->project);
	if ((s = calloc(1, sizeof *s)) == NULL)
		return error_nomem(err);
	s->project_fd = -1;
	TAILQ_INIT(&s->commands);
	session_new_id(s->id);
	s->project = strdup(real);
	s->title = p->title ? strdup(p->title) : NULL;
	s->provider = p->provider ? strdup(p->provider) : NULL;
	s->model = p->model ? strdup(p->model) : NULL;
	s->space = p->space ? strdup(p->space) : NULL;
	s->parent = p->parent ? strdup(p->parent) : NULL;
	s->creator_uid = p->uid;
	s->created_ms = store_now_ms();
	s->refused = json_array();
	s->scratch = session_path("scratch", s->id);
	if (s->scratch == NULL || s->project == NULL) {
		session_free(s);
		return error_nomem(err);
	}
	/* resolve once, hold a descriptor: what is checked is what is bound */
	if ((s->project_fd = container_bind_open(s->project, 0, NULL, err)) < 0) {
		error_context(err, "project");
		goto fail;
	}
	if (p->parent != NULL) {
		struct session *parent = session_find(p->parent, err);
		if (parent == NULL || session_narrow_project(parent, s->project,
		    s->project_fd, err) < 0)
			goto fail;
	}
	{
		struct session_params rp = *p;
		rp.project = s->project;
		if ((s->profile = session_narrow_resolve(&rp, err)) == NULL)
			goto fail;
	}

	{
		char *base = session_path("scratch", NULL);
		mkdir(base, 0700);
		free(base);
		if (mkdir(s->scratch, 0700) == -1) {
			error_set_errno(err, E_IO, errno, "cannot create the "
			    "scratch folder %s", s->scratch);
			goto fail;
		}
		if (geteuid() == 0) {	/* the sandbox's own uid writes it */
			uid_t u;
			gid_t g;
			container_bind_sandbox_ids(&u, &g);
			if (chown(s->scratch, u, g) == -1) {
				error_set_errno(err, E_IO, errno, "cannot give the "
				    "scratch folder %s to the sandbox", s->scratch);
				goto fail_rm;
			}
		}
	}
	if (session_make_plan(s, p, err) == -1 || session_make_env(s, err) == -1 ||
	    session_record(s, p->uid, err) == -1)
		goto fail_rm;
	session_env_dropped(s, p->env);
	TAILQ_INSERT_TAIL(&session_list, s, entry);
	session_live++;
	/* a backend can show at once whether the session is sandboxed */
	events_publish("session.created", s->id, json_pack("{s:s, s:s, s:s, "
	    "s:b, s:s?}", "profile", s->profile->name, "project", s->project,
	    "provenance", s->profile->provenance ? s->profile->provenance : "",
	    "sandboxed", s->plan->sandboxed, "parent", s->parent));
	if (!s->plan->sandboxed) {
		s->state = SESSION_READY;
		store_session_set_state(sboxd.store, s->id, "ready", NULL, NULL);
		session_write_note(s);
		events_publish("session.ready", s->id, json_pack("{s:s, s:s, s:b}",
		    "profile", s->profile->name, "project", s->project,
		    "sandboxed", 0));
		*result = session_created_json(s);
		return 0;
	}
	if (session_start_container(s, err) == -1) {
		store_session_set_state(sboxd.store, s->id, "failed", err->message,
		    NULL);
		TAILQ_REMOVE(&session_list, s, entry);
		session_live--;
		goto fail_rm;
	}
	if (call == NULL) {	/* the daemon's own session (sandbox.check) */
		*result = json_pack("{s:s}", "session", s->id);
		return RPC_LATER;
	}
	struct session_waiter *w = calloc(1, sizeof *w);
	if (w == NULL) {
		session_close(s, "out of memory");
		return error_nomem(err);
	}
	w->call = call;
	s->waiters = w;
	return RPC_LATER;
fail_rm:
	rmtree(s->scratch);
fail:
	session_free(s);
	return -1;
}

/* At start: mark what a previous run left live as ended by a crash and
 * remove its leftovers. */
int
session_recover(sbox_error *err)
{
	char *dir, *path;
	json_t *ids, *note;
	size_t i;
	json_t *id;
	int n;

	if ((ids = store_session_mark_crashed(sboxd.store, err)) == NULL)
		return -1;
	if (json_array_size(ids) > 0)
		log_warn("%zu session(s) of a previous run ended by a crash",
		    json_array_size(ids));
	dir = session_path("notes", NULL);
	json_array_foreach(ids, i, id) {
		if ((path = session_path("notes", json_string_value(id))) == NULL)
			continue;
		if ((note = json_load_file(path, 0, NULL)) != NULL) {
			container_placeholders_remove(json_object_get(note,
			    "placeholders"));
			rmtree(json_string_value(json_object_get(note,
			    "scratch")));
			json_decref(note);
		}
		unlink(path);
		free(path);
	}
	free(dir);
	json_decref(ids);
	if ((n = store_command_mark_crashed(sboxd.store, err)) < 0)
		return -1;
	if (store_approval_mark_crashed(sboxd.store, err) < 0)
		return -1;
	return 0;
}
