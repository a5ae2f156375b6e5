/* session-create.c: a session made: its environment, its plan (with the
 * protected names and what its repositories' git config names), its store
 * row, its container started and the answer once it is ready or failed. */
#define _XOPEN_SOURCE 700
#include "daemon/session/session-internal.h"
#include "daemon/session/session-keep.h"
#include "daemon/session/session.h"
#include <errno.h>
#include <event2/event.h>
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
#include "daemon/container/cachedir.h"
#include "daemon/container/container.h"
#include "daemon/container/diskguard.h"
#include "daemon/container/container-bind.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/proxy/proxy-proc.h"
#include "daemon/container/rmtree.h"
#include "daemon/session/toolconf.h"
#include "policy/guard.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session-provider.h"
#include "daemon/shape.h"
#include "policy/policy.h"
#include "policy/render-bwrap.h"
#include "policy/strv.h"
#include "store/store.h"

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

/* Record a session's "ready" (from the loop, after its answer went out:
 * the answer waits for no SQLite write); not once it has closed. */
static void
session_ready_stored(evutil_socket_t fd, short what, void *arg)
{
	struct session *s;
	sbox_error err;
	char *id = arg;

	(void)fd;
	(void)what;
	error_clear(&err);
	s = session_find(id, NULL);
	if (s != NULL && s->state == SESSION_READY &&
	    store_session_set_state(sboxd.store, s->id, "ready", NULL, &err) ==
	    -1)
		log_error("session %s: %s", s->id, err.message);
	free(id);
}

/* The container, the proxy and the kept files are ready: the session is. */
static void
session_ct_ready_done(struct session *s)
{
	char *id;
	sbox_error err;

	error_clear(&err);
	/* (its note, written at create, holds what it still needs) */
	s->state = SESSION_READY;
	if (s->spare != NULL) {	/* nothing to record or tell until taken */
		log_debug("session spare %s ready in %lld ms", s->id,
		    container_start_ms(s->ct));
		return;
	}
	id = strdup(s->id);
	if (id == NULL || sboxd.base == NULL || event_base_once(sboxd.base, -1,
	    EV_TIMEOUT, session_ready_stored, id, &(struct timeval){ 0, 0 }) <
	    0) {
		free(id);
		if (store_session_set_state(sboxd.store, s->id, "ready", NULL,
		    &err) == -1)
			log_error("session %s: %s", s->id, err.message);
	}
	log_info("session %s ready in %lld ms (profile %s)", s->id,
	    container_start_ms(s->ct), s->profile->name);
	events_publish("session.ready", s->id, json_pack("{s:s, s:s, s:b}",
	    "profile", s->profile->name, "project", s->project, "sandboxed", 1));
	session_answer(s, NULL);
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
	s->ct = ct;
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
	pc.on_failure = session_access_host_failed;
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
	/* the provider's kept home files first (session-keep.c) */
	session_keep_seed(s, session_ct_ready_done);
	return;
fail:
	if (s->spare != NULL) {
		log_debug("session spare %s could not start: %s", s->id,
		    err.message);
		session_spare_closed(s);
		return;
	}
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
	session_drop_note(s);
	session_unregister(s);
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
	/* any tool can tell it runs in sbox, and under which profile */
	if (s->profile != NULL && s->profile->name != NULL &&
	    session_setenv(&s->env, "SBOX_SANDBOX", s->profile->name) == -1)
		return error_nomem(err);
	return 0;
}

/* The protected-names file as last loaded, and which file it was then:
 * loaded again once the file is another or changed (its parse was ~0.3 ms
 * of every create). */
static struct {
	struct guard_table t;
	char              *path;
	struct stat        st;
} session_prot_file;
static unsigned session_prot_gen;

/* How many times the protected-names file was loaded. */
unsigned
session_protected_gen(void)
{
	return session_prot_gen;
}

/* Is st the same file, unchanged, as the one loaded? */
static int
session_protected_same(const char *path, const struct stat *st)
{
	const struct stat *o = &session_prot_file.st;

	return session_prot_file.path != NULL &&
	    strcmp(session_prot_file.path, path) == 0 && o->st_dev ==
	    st->st_dev && o->st_ino == st->st_ino && o->st_size ==
	    st->st_size && o->st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    o->st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
	    o->st_ctim.tv_sec == st->st_ctim.tv_sec &&
	    o->st_ctim.tv_nsec == st->st_ctim.tv_nsec;
}

/* The protected names: the data file (fail closed when there is none;
 * kept while it does not change), then the config's additions. *use is
 * the table to plan with: the kept one itself when the config adds
 * nothing, else t (a copy of both, which the caller frees). */
static int
session_protected(struct guard_table *t, const struct guard_table **use,
    sbox_error *err)
{
	const char *file = guard_table_file(toolconf_protected_file());
	const struct guard_table *more = sboxd.config ?
	    sboxd.config->protected : NULL;
	struct stat st;

	memset(t, 0, sizeof *t);
	*use = t;
	if (file == NULL)
		return error_set(err, E_SANDBOX_SETUP, "no protected-names file: "
		    "install sbox (PREFIX/share/sbox/protected), or set "
		    "SBOX_PROTECTED_FILE");
	if (stat(file, &st) < 0 || !session_protected_same(file, &st)) {
		guard_table_free(&session_prot_file.t);
		free(session_prot_file.path);
		session_prot_file.path = NULL;
		if (guard_table_load(&session_prot_file.t, file, err) < 0) {
			guard_table_free(&session_prot_file.t);
			return error_context(err, "the protected names");
		}
		/* (a file changed between the stat and the read is loaded
		 * again at the next create: its identity is the stat's) */
		if ((session_prot_file.path = strdup(file)) == NULL) {
			guard_table_free(&session_prot_file.t);
			return error_nomem(err);
		}
		session_prot_file.st = st;
		session_prot_gen++;
	}
	if (more == NULL || more->n == 0) {
		*use = &session_prot_file.t;
		return 0;
	}
	if (guard_table_copy(t, &session_prot_file.t, err) < 0 ||
	    guard_table_copy(t, more, err) < 0) {
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
	const struct guard_table *protected = &prot;
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
	if (s->profile->sandboxed && session_protected(&prot, &protected,
	    err) < 0) {
		free(cache_root);
		free(phome);
		strv_free(registries);
		strv_free(client_env);
		free(sockdir);
		free(scratch_base);
		return -1;
	}
	ctx.protected = protected;
	/* what a sandbox left in its provider's home that cannot be bound */
	session_provider_aside(s->profile, phome, home, protected,
	    &s->home_moved);
	ctx.no_read_reports = sboxd.config != NULL && !sboxd.config->report_reads;
	s->plan = policy_plan(s->profile, &ctx, err);
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
int
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
	o.on_exclude = session_hooks.exclude;
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

/* Would a create of p, planned now with the spare's id and scratch
 * folder, make the same session as spare sp? (The plan again: what runs
 * is what a create made now would run.) */
static int
session_spare_same(const struct session *n, const struct session *sp,
    const struct session_params *p)
{
	struct session t;
	sbox_error err;
	char *dump = NULL;
	int same;

	memset(&t, 0, sizeof t);
	t.project = n->project;
	t.scratch = sp->scratch;
	t.profile = n->profile;
	error_clear(&err);
	if (session_make_plan(&t, p, &err) == 0)
		dump = session_spare_dump(&t);
	same = dump != NULL && strcmp(dump, sp->spare_dump) == 0;
	if (dump != NULL && !same)
		log_debug("session spare %s not taken: its plan differs", sp->id);
	free(dump);
	if (t.plan != NULL)
		plan_free(t.plan);
	strv_free(t.home_moved);
	return same;
}

/* A one-shot create served by spare sp (same plan): the spare becomes
 * the session asked for, registered, recorded and announced as a new one;
 * answered now when it is ready, else when it is. n (the create so far)
 * is freed. */
static int
session_spare_adopt(struct session *n, struct session *sp,
    const struct session_params *p, struct rpc_call *call, json_t **result,
    sbox_error *err)
{
	struct session_waiter *w;
	char *id;

	free(sp->title);
	sp->title = n->title;
	n->title = NULL;
	sp->creator_uid = p->uid;
	sp->created_ms = store_clock_now_ms();
	sp->active_ms = sp->created_ms;
	session_spare_key_free(sp->spare);
	sp->spare = NULL;
	sp->one_shot = n->one_shot;
	n->one_shot = NULL;
	/* what of this client's environment stays out (the plan's is the same) */
	json_decref(sp->env_dropped);
	session_env_dropped(sp, p->env);
	session_free(n);
	session_register(sp);
	if (session_record(sp, p->uid, err) == -1) {
		session_close_now(sp, "its row could not be written", 0);
		return -1;
	}
	events_publish("session.created", sp->id, json_pack("{s:s, s:s, s:s, "
	    "s:b, s:s?}", "profile", sp->profile->name, "project", sp->project,
	    "provenance", sp->profile->provenance ? sp->profile->provenance : "",
	    "sandboxed", 1, "parent", sp->parent));
	if (sp->state != SESSION_READY) {	/* still starting: wait for it */
		if ((w = calloc(1, sizeof *w)) == NULL) {
			session_close(sp, "out of memory");
			return error_nomem(err);
		}
		w->call = call;
		sp->waiters = w;
		return RPC_LATER;
	}
	if ((id = strdup(sp->id)) == NULL || event_base_once(sboxd.base, -1,
	    EV_TIMEOUT, session_ready_stored, id, &(struct timeval){ 0, 0 }) <
	    0) {
		free(id);
		store_session_set_state(sboxd.store, sp->id, "ready", NULL, NULL);
	}
	log_info("session %s ready (made ahead; profile %s)", sp->id,
	    sp->profile->name);
	events_publish("session.ready", sp->id, json_pack("{s:s, s:s, s:b}",
	    "profile", sp->profile->name, "project", sp->project, "sandboxed", 1));
	*result = session_created_json(sp);
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

	if (session_count() >= sboxd.lim.max_sessions)
		return error_set(err, E_LIMIT, "sboxd already runs %d sessions "
		    "(its limit); close some first", session_count());
	if (session_access_budget(p->parent, err) == -1 ||
	    diskguard_check(NULL, NULL, err) == -1)
		return -1;
	if (p->close_with_client && (call == NULL || rpc_call_conn(call) ==
	    NULL))
		return error_set_field(err, E_INVALID_PARAMS, "close_with_client",
		    "close_with_client needs a client connection");
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
	s->created_ms = store_clock_now_ms();
	s->active_ms = s->created_ms;
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
	/* a one-shot create: the spare made ahead for it, when it would be
	 * this very session (session-spare.c) */
	if (p->spare == NULL && (s->one_shot = session_spare_key(p,
	    s->project)) != NULL && call != NULL && s->profile->sandboxed) {
		struct session *sp = session_spare_take(s->one_shot,
		    s->project_fd);

		if (sp != NULL && session_spare_same(s, sp, p))
			return session_spare_adopt(s, sp, p, call, result, err);
		if (sp != NULL)
			session_spare_reject(sp);
	}

	/* its note and scratch folder (made ahead when they can be) */
	if (session_scratch_make(s, err) == -1)
		goto fail;
	if (session_make_plan(s, p, err) == -1)
		goto fail_rm;
	/* a spare is compared by its plan as made, before git's additions */
	if (p->spare != NULL && (!s->plan->sandboxed || (s->spare_dump =
	    session_spare_dump(s)) == NULL)) {
		error_set(err, E_INTERNAL, "no spare for this session");
		goto fail_rm;
	}
	if (session_gitcfg_start(s, err) < 0 || session_make_env(s, err) == -1 ||
	    (!s->plan->sandboxed && session_record(s, p->uid, err) == -1))
		goto fail_rm;
	session_env_dropped(s, p->env);
	if (p->spare != NULL) {	/* out of the registry, unannounced */
		if (session_start_container(s, err) == -1)
			goto fail_rm;
		session_scratch_later();
		s->spare = p->spare;
		session_spare_keep(s);
		*result = json_pack("{s:s}", "session", s->id);
		return RPC_LATER;
	}
	session_register(s);
	/* close_with_client: it ends when the creating connection does */
	if (p->close_with_client && session_client_bind(s, call, err) == -1) {
		session_unregister(s);
		goto fail_rm;
	}
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
	/* its row is written while bwrap starts (what the start needs is
	 * the plan; the recovery note already names the scratch folder) */
	if (session_start_container(s, err) == -1) {
		sbox_error e2 = { 0 };

		if (session_record(s, p->uid, &e2) == 0)
			store_session_set_state(sboxd.store, s->id, "failed",
			    err->message, NULL);
		session_unregister(s);
		goto fail_rm;
	}
	if (session_record(s, p->uid, err) == -1) {
		session_close_now(s, "its row could not be written", 0);
		return -1;
	}
	/* the next session's scratch folder, while this bwrap starts */
	session_scratch_later();
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
	session_drop_note(s);
	session_free(s);
	return -1;
}
