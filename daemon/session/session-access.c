/* session-access.c: who may use a session (clients inside a sandbox see
 * only their own session and the ones created through it), and what passes
 * a session's proxy (refusals recorded, hosts allowed at run time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/container/container.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/proxy/proxy-proc.h"
#include "daemon/ratelimit.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/config.h"
#include "policy/guard.h"
#include "policy/hostpat.h"
#include "policy/plan.h"
#include "policy/profile.h"
#include "policy/strv.h"
#include "store/store.h"

/* May a client inside session viewer (NULL: a host client) use s? */
int
session_access_visible(const struct session *s, const char *viewer)
{
	int depth = 0;

	if (viewer == NULL)
		return 1;
	while (s != NULL && depth++ < 64) {
		if (strcmp(s->id, viewer) == 0)
			return 1;
		s = s->parent ? session_find(s->parent, NULL) : NULL;
	}
	return 0;
}

/* The top-level session of s (itself when it has no parent). */
static const struct session *
session_access_top(const struct session *s)
{
	const struct session *up;
	int depth = 0;

	while (s->parent != NULL && depth++ < 64 &&
	    (up = session_find(s->parent, NULL)) != NULL)
		s = up;
	return s;
}

/* May a session be created now (under parent, or by a host client)? */
int
session_access_budget(const char *parent, sbox_error *err)
{
	const struct session *p, *top, *s;
	int live = 0, tree = 0;

	for (s = session_next(NULL); s != NULL; s = session_next(s))
		if (s->state < SESSION_CLOSING)
			live++;
	if (parent == NULL)
		return 0;   /* the table's own limit is checked by the caller */
	if ((p = session_find(parent, err)) == NULL)
		return -1;
	if (live >= sboxd.lim.max_sessions - sboxd.lim.host_sessions)
		return error_set(err, E_LIMIT, "sboxd keeps its last %d sessions "
		    "for host clients (%d of %d are in use); a session may not "
		    "create more now", sboxd.lim.host_sessions, live,
		    sboxd.lim.max_sessions);
	top = session_access_top(p);
	for (s = session_next(NULL); s != NULL; s = session_next(s)) {
		if (s != top && s->state < SESSION_CLOSING &&
		    session_access_top(s) == top)
			tree++;
	}
	if (tree >= sboxd.lim.max_children)
		return error_set(err, E_LIMIT, "a session may run at most %d "
		    "sessions of its own at once, counting the sessions they "
		    "created (session %s and its descendants have %d)",
		    sboxd.lim.max_children, top->id, tree);
	return 0;
}

/* Find a live session the client of a call may use. */
struct session *
session_access_lookup(struct rpc_call *call, const char *id, sbox_error *err)
{
	struct conn *c = call ? rpc_call_conn(call) : NULL;
	struct session *s;

	if (id == NULL || (s = session_find(id, err)) == NULL) {
		if (id == NULL)
			error_set_field(err, E_SESSION_NOT_FOUND, "session",
			    "no session given");
		return NULL;
	}
	if (!session_access_visible(s, c ? client_sandbox_session(c) : NULL)) {
		error_set_field(err, E_SESSION_NOT_FOUND, "session",
		    "no live session %s", id);
		return NULL;
	}
	s->active_ms = store_clock_now_ms();	/* not idle (idle_close_s) */
	return s;
}

/* host.refused events: per session and per (session, host, port), the
 * first few in an interval are published, then one summary per interval
 * with the number held back (every refusal is still counted in the store). */
#define SESSION_ACCESS_EV_INTERVAL_MS 10000
#define SESSION_ACCESS_EV_PER_HOST    5
#define SESSION_ACCESS_EV_PER_SESSION 50

static struct ratelimit session_access_rl_host, session_access_rl_session;
static struct ratelimit_slot session_access_slots_host[256];
static struct ratelimit_slot session_access_slots_session[256];
/* file.refused events (and their log lines): the same limits, per session
 * and per (session, op, path); each refusal is still noted on its command */
static struct ratelimit session_access_rl_file, session_access_rl_fsession;
static struct ratelimit_slot session_access_slots_file[256];
static struct ratelimit_slot session_access_slots_fsession[256];
static int session_access_rl_ready;

/* Publish the summary of host.refused events held back for one key
 * ("session" or "session port host"). */
static void
session_access_refused_summary(const char *key, unsigned long n, void *arg)
{
	char session[RATELIMIT_KEY_MAX];
	const char *host = NULL;
	char *sp, *end;
	long port = 0;

	(void)arg;
	snprintf(session, sizeof session, "%s", key);
	if ((sp = strchr(session, ' ')) != NULL) {
		*sp = '\0';
		port = strtol(sp + 1, &end, 10);
		host = *end == ' ' ? end + 1 : NULL;
	}
	events_publish("host.refused", session, json_pack("{s:s?, s:I, "
	    "s:b, s:I}", "host", host, "port", (json_int_t)port, "summary", 1,
	    "suppressed", (json_int_t)n));
}

/* Publish the summary of file.refused events held back for one key
 * ("session" or "session op path"). */
static void
session_access_file_summary(const char *key, unsigned long n, void *arg)
{
	char session[RATELIMIT_KEY_MAX];
	const char *op = NULL, *path = NULL;
	char *sp, *sp2;

	(void)arg;
	snprintf(session, sizeof session, "%s", key);
	if ((sp = strchr(session, ' ')) != NULL) {
		*sp = '\0';
		op = sp + 1;
		if ((sp2 = strchr(sp + 1, ' ')) != NULL) {
			*sp2 = '\0';
			path = sp2 + 1;
		}
	}
	log_info("session %s: %lu more file refusal(s) like the last ones "
	    "(%s %s)", session, n, op ? op : "any", path ? path : "");
	events_publish("file.refused", session, json_pack("{s:s?, s:s?, s:b, "
	    "s:I}", "op", op, "path", path, "summary", 1, "suppressed",
	    (json_int_t)n));
}

/* Set the limiters up once. */
static void
session_access_rl_init(void)
{
	if (session_access_rl_ready)
		return;
	ratelimit_init(&session_access_rl_host, session_access_slots_host,
	    sizeof session_access_slots_host / sizeof session_access_slots_host[0],
	    SESSION_ACCESS_EV_PER_HOST, SESSION_ACCESS_EV_INTERVAL_MS);
	ratelimit_init(&session_access_rl_session, session_access_slots_session,
	    sizeof session_access_slots_session /
	    sizeof session_access_slots_session[0],
	    SESSION_ACCESS_EV_PER_SESSION, SESSION_ACCESS_EV_INTERVAL_MS);
	ratelimit_init(&session_access_rl_file, session_access_slots_file,
	    sizeof session_access_slots_file / sizeof session_access_slots_file[0],
	    SESSION_ACCESS_EV_PER_HOST, SESSION_ACCESS_EV_INTERVAL_MS);
	ratelimit_init(&session_access_rl_fsession,
	    session_access_slots_fsession, sizeof session_access_slots_fsession /
	    sizeof session_access_slots_fsession[0],
	    SESSION_ACCESS_EV_PER_SESSION, SESSION_ACCESS_EV_INTERVAL_MS);
	session_access_rl_ready = 1;
}

/* From a timer: publish the summaries of intervals that ended. */
void
session_access_tick(void)
{
	long long now = sboxd_now_ms();

	if (!session_access_rl_ready)
		return;
	ratelimit_expire(&session_access_rl_session, now,
	    session_access_refused_summary, NULL);
	ratelimit_expire(&session_access_rl_host, now,
	    session_access_refused_summary, NULL);
	ratelimit_expire(&session_access_rl_fsession, now,
	    session_access_file_summary, NULL);
	ratelimit_expire(&session_access_rl_file, now,
	    session_access_file_summary, NULL);
}

/* Is host one of the session's provider's background (telemetry) hosts?
 * 1 and *first set (first refusal of it in the session), or 0. */
static int
session_access_telemetry(struct session *s, const char *host, int port,
    int *first)
{
	const struct config_binding *b;
	char key[300];

	if (sboxd.config == NULL || s->profile == NULL ||
	    s->profile->provider == NULL || (b = config_find_binding(
	    sboxd.config->providers, sboxd.config->n_providers,
	    s->profile->provider)) == NULL || b->telemetry == NULL ||
	    !hostpat_match_list(b->telemetry, host, port))
		return 0;
	snprintf(key, sizeof key, "%s:%d", host, port);
	*first = !strv_contains(s->telemetry_noted, key);
	if (*first && strv_len(s->telemetry_noted) < 256)
		(void)strv_add_unique(&s->telemetry_noted, key);
	return 1;
}

/* Called by the proxy for each refused host of a session: counted in the
 * store always (a provider's telemetry host: once per session), published
 * as an event within the rate limits. */
void
session_access_host_refused(const char *session, const char *host, int port,
    const char *reason, const char *rule, void *arg)
{
	struct session *s = arg;
	char key[RATELIMIT_KEY_MAX], why[400];
	long long cmd, now = sboxd_now_ms();
	int first;

	if (strcmp(rule, PROXY_RULE_ALLOWLIST) == 0 &&
	    session_access_telemetry(s, host, port, &first)) {
		if (!first)
			return; /* refused again: said once already */
		snprintf(why, sizeof why, "%s is where %s sends telemetry or "
		    "syncs in the background; refused unless a person allows "
		    "it (recorded once per session)", host, s->profile->provider);
		rule = PLAN_RULE_TELEMETRY;
		reason = why;
	}

	cmd = session_hooks.host_refused != NULL ?
	    session_hooks.host_refused(s, host, port, rule, reason) : 0;
	store_refusal_add(sboxd.store, session, cmd, host, port, reason, rule,
	    NULL);
	session_access_rl_init();
	if (!ratelimit_hit(&session_access_rl_session, session, now,
	    session_access_refused_summary, NULL))
		return;
	snprintf(key, sizeof key, "%s %d %s", session, port, host);
	if (!ratelimit_hit(&session_access_rl_host, key, now,
	    session_access_refused_summary, NULL))
		return;
	events_publish("host.refused", session, json_pack("{s:s, s:i, s:s, s:s, "
	    "s:o}", "host", host, "port", port, "reason", reason, "rule", rule,
	    "command", cmd > 0 ? json_integer(cmd) : json_null()));
}

/* Called by the proxy when an allowed host could not be reached: noted on
 * the running commands (not a refusal: nothing for the store). */
void
session_access_host_failed(const char *session, const char *host, int port,
    const char *cause, void *arg)
{
	struct session *s = arg;

	log_info("session %s: connection to %s:%d failed: %s", session, host,
	    port, cause);
	events_tell("session.host_failed", s->id, json_pack("{s:s, s:i, s:s}",
	    "host", host, "port", port, "cause", cause));
}

/* session.allow_host: let one more host through a live session's proxy. */
int
session_access_allow_host(struct session *s, const char *host, sbox_error *err)
{
	if (s->proxy == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "session",
		    "session %s has no network proxy (profile %s is not "
		    "sandboxed)", s->id, s->profile->name);
	if (proxy_proc_allow_host(s->proxy, host, err) == -1)
		return -1;
	events_publish("host.allowed", s->id, json_pack("{s:s}", "host", host));
	return 0;
}

/* A path as messages show it: relative to the project when inside. */
static const char *
session_access_shown(const struct session *s, const char *path)
{
	const char *p = s->plan ? s->plan->project : NULL;
	size_t n = p ? strlen(p) : 0;

	return n > 0 && strncmp(path, p, n) == 0 && path[n] == '/' ?
	    path + n + 1 : path;
}

/* Why a hidden path cannot be read, and what a person can do (into buf). */
static void
session_access_read_reason(const struct session *s, const char *path,
    const char *rule, char *buf, size_t len)
{
	const struct guard_table *t = s->plan->guard ? &s->plan->guard->table :
	    NULL;
	const char *home = s->plan->guard ? s->plan->guard->home : NULL;
	size_t i, n = home ? strlen(home) : 0;

	if (strcmp(rule, PLAN_RULE_CREDENTIALS) == 0) {
		for (i = 0; t != NULL && n > 0 && i < t->n; i++) {
			const char *rel = path + n + 1;
			size_t k = strlen(t->e[i].name);

			if (t->e[i].kind == GUARD_KIND_CREDENTIAL &&
			    strncmp(path, home, n) == 0 && path[n] == '/' &&
			    strncmp(rel, t->e[i].name, k) == 0 &&
			    (rel[k] == '\0' || rel[k] == '/')) {
				snprintf(buf, len, "a credential (%s): never "
				    "visible in a sandbox", t->e[i].comment ?
				    t->e[i].comment : t->e[i].name);
				return;
			}
		}
		snprintf(buf, len, "a credential: never visible in a sandbox");
	} else if (strcmp(rule, PLAN_RULE_HOME) == 0)
		snprintf(buf, len, "the sandbox's home folder is empty; a "
		    "profile's \"folders\" (read_only, read_write) can show a "
		    "folder of it");
	else if (strcmp(rule, PLAN_RULE_SBOX) == 0)
		snprintf(buf, len, "sbox's own files are never visible in a "
		    "sandbox");
	else if (strcmp(rule, PLAN_RULE_SOCKETS) == 0)
		snprintf(buf, len, "the host's Unix sockets are never visible "
		    "in a sandbox");
	else if (strcmp(rule, PLAN_RULE_ROOT_ONLY) == 0)
		snprintf(buf, len, "only root can read it on the host, and a "
		    "sandbox never holds root");
	else if (strcmp(rule, PLAN_RULE_PROFILE_DENY) == 0)
		snprintf(buf, len, "the profile's \"deny\" folders");
	else
		snprintf(buf, len, "hidden from the sandbox");
}

/* Is path one of the hidden home folder's own top-level dotfiles (a name
 * directly in it that starts with '.' and is not a folder on the host:
 * .bashrc, .inputrc, .bash_history, .gitconfig...)? A program looks for
 * its per-user settings and history there at every start; in the
 * sandbox's empty home it runs as for a new account, by design, which is
 * nothing to report. A folder of the home and anything in one (.config/,
 * .ssh/ and the credentials' own rule included) stays reported. */
static int
session_access_home_dotfile(const struct plan_path_rule *r, const char *path,
    const struct stat *st)
{
	size_t n = strlen(r->path);

	return strcmp(r->rule, PLAN_RULE_HOME) == 0 && !S_ISDIR(st->st_mode) &&
	    strncmp(path, r->path, n) == 0 && path[n] == '/' &&
	    path[n + 1] == '.' && strchr(path + n + 1, '/') == NULL;
}

/* A read (or the source of a rename or link) that a hidden path refused,
 * as sbox-init reports it: kept only when the plan hides the path and the
 * host has it (the sandbox changed the outcome), and it is not one of the
 * home's own dotfiles a program probes at start; sets rule, the message
 * and the reason. 0 or -1 (not the sandbox's doing, or nothing to say). */
static int
session_access_hidden(const struct session *s, const char *op,
    const char *path, const char **rule, char **msg, char *reason,
    size_t len)
{
	const struct plan_path_rule *r = plan_explain(s->plan, path);
	struct stat st;

	if (r == NULL || r->access != PLAN_ACCESS_HIDDEN ||
	    lstat(path, &st) < 0)
		return -1;
	if (strcmp(op, "read") == 0 && session_access_home_dotfile(r, path, &st))
		return -1;
	*rule = r->rule;
	session_access_read_reason(s, path, r->rule, reason, len);
	if (asprintf(msg, "%s of %s refused: %s", op, session_access_shown(s,
	    path), r->rule) < 0) {
		*msg = NULL;
		return -1;
	}
	return 0;
}

/* Copy text as one line of printable ASCII and UTF-8 (control bytes are
 * '?'): what a process inside is told must not act on a terminal that
 * later shows it. */
static void
session_access_line(char *out, size_t len, const char *text)
{
	size_t o = 0;

	for (; text != NULL && *text != '\0' && o + 1 < len; text++)
		out[o++] = ((unsigned char)*text < 0x20 || *text == 0x7f) ? '?' :
		    *text;
	out[o] = '\0';
}

/* The words sbox-init writes to the refused process's own stderr: what was
 * refused, by which rule, and what can be done (malloc'd, or NULL). */
static char *
session_access_tell(const struct session *s, const char *msg,
    const char *reason)
{
	char what[1024], why[1024], *t = NULL;
	int never = s->profile != NULL &&
	    s->profile->run_outside == PROFILE_RUN_NEVER;

	session_access_line(what, sizeof what, msg);
	session_access_line(why, sizeof why, reason);
	if (asprintf(&t, "sbox: blocked: %s%s%s%s; the sandbox refused it "
	    "(retrying will not help): %s%s%s\n", what, why[0] ? " (" : "",
	    why, why[0] ? ")" : "", never ? "this session's profile never runs "
	    "a command outside the sandbox; ask the person to run it" :
	    "ask the person to run the command outside the sandbox: sbox "
	    "session outside ", never ? "" : s->id, never ? "" :
	    " --reason WHY -- COMMAND") < 0)
		return NULL;
	return t;
}

/* The file guard refused an operation of a command: note it, publish it. A
 * refusal by the kernel (rule "") counts only when the plan explains it;
 * one by a hidden path only when the plan hides it and the host has it. */
void
session_access_file_refused(struct container *ct,
    const struct container_refusal *f, void *arg)
{
	struct session *s = arg;
	const char *op = f->op, *xop = f->op, *xrule = f->rule;
	const char *reason = f->reason;
	char *msg = NULL, why[GUARD_COMMENT_MAX + 128], key[RATELIMIT_KEY_MAX];

	(void)ct;
	if (s->plan == NULL)
		return;
	if (f->hidden) {
		if (session_access_hidden(s, op, f->path, &xrule, &msg, why,
		    sizeof why) < 0)
			goto out;
		reason = why;
	} else if (xrule[0] == '\0') {
		msg = session_hooks.explain == NULL ? NULL :
		    session_hooks.explain(s->plan, f->path, "/", f->errnum, 1,
		    &xop, &xrule);
		if (msg == NULL || xrule == NULL)
			goto out; /* not the sandbox's doing: nothing to say */
		xop = op;
	} else if (asprintf(&msg, "%s %s refused: %s", strcmp(op, "write") == 0 ?
	    "write to" : strcmp(op, "create") == 0 ? "create" : strcmp(op,
	    "chmod") == 0 ? "chmod of" : strcmp(op, "link") == 0 ? "link to" :
	    strcmp(op, "exec") == 0 ? "start of" : strcmp(op, "remove") == 0 ?
	    "removal of" : strcmp(op, "chown") == 0 ? "chown of" : strcmp(op,
	    "utime") == 0 ? "time change of" : strcmp(op, "xattr") == 0 ?
	    "attribute removal on" : strcmp(op, "connect") == 0 ?
	    "connect to" : "rename to",
	    session_access_shown(s, f->path), xrule) < 0) {
		msg = NULL;
		goto out;
	}
	/* noted on the command (command/command-session.c) */
	events_tell("session.file_refused", s->id, json_pack("{s:I, s:s, s:s, "
	    "s:s, s:s, s:s, s:i, s:s}", "ct_id", (json_int_t)f->id, "path",
	    f->path, "op", xop, "rule", xrule, "message", msg, "reason",
	    reason, "pid", (int)f->pid, "process", f->process));
	if (f->tell != NULL)
		*f->tell = session_access_tell(s, msg, reason);
	session_access_rl_init();
	if (!ratelimit_hit(&session_access_rl_fsession, s->id, sboxd_now_ms(),
	    session_access_file_summary, NULL))
		goto out;
	snprintf(key, sizeof key, "%s %s %s", s->id, xop, f->path);
	if (!ratelimit_hit(&session_access_rl_file, key, sboxd_now_ms(),
	    session_access_file_summary, NULL))
		goto out;
	log_info("session %s: %s (%s; %s, pid %d)", s->id, msg, reason,
	    f->process, (int)f->pid);
	events_publish("file.refused", s->id, json_pack("{s:s, s:s, s:s, "
	    "s:s, s:s, s:i, s:s}", "path", f->path, "op", xop, "rule", xrule,
	    "reason", reason, "message", msg, "pid", (int)f->pid, "process",
	    f->process));
out:
	free(msg);
}
