/* session.c: the registry of live sessions: finding, describing, their crash
 * notes, answering session.create, closing (with their children). */
#define _XOPEN_SOURCE 700
#include "daemon/session/session.h"
#include "daemon/session/session-internal.h"

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

#include "daemon/container/cachedir.h"
#include "daemon/container/container.h"
#include "daemon/container/diskguard.h"
#include "daemon/container/container-bind.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/proxy/proxy-proc.h"
#include "daemon/container/rmtree.h"
#include "daemon/session/session-sequencer.h"
#include "daemon/session/toolconf.h"
#include "policy/caches.h"
#include "policy/guard.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session-provider.h"
#include "daemon/shape.h"
#include "policy/policy.h"
#include "policy/render-bwrap.h"
#include "policy/strv.h"
#include "store/store.h"

struct session_hooks session_hooks;  /* named at start (main.c; daemon/hooks.h) */

static TAILQ_HEAD(, session) session_list = TAILQ_HEAD_INITIALIZER(session_list);
static int session_live;

/* Put a new session in the registry. */
void
session_register(struct session *s)
{
	TAILQ_INSERT_TAIL(&session_list, s, entry);
	session_live++;
}

/* Take a session out of the registry. */
void
session_unregister(struct session *s)
{
	TAILQ_REMOVE(&session_list, s, entry);
	session_live--;
}

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

/* For the disk guard: the live (not closing) session after *it (*it NULL:
 * the first), its plan and its caches' size limit; 0 when none is left. */
int
session_next_live(const void **it, const struct plan **plan, uint64_t *limit)
{
	const struct session *s = *it;

	while ((s = session_next(s)) != NULL && s->state >= SESSION_CLOSING)
		;
	*it = s;
	if (s == NULL)
		return 0;
	*plan = s->plan;
	*limit = caches_limit_bytes(s->profile);
	return 1;
}

/* A new random session id: 16 hex characters. */
void
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
char *
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

/* Write the note that lets the next start clean up after a crash (before
 * the scratch folder is made: a crash at any point leaves a note). */
int
session_write_note(struct session *s)
{
	char *dir = session_path("notes", NULL), *path = session_path("notes",
	    s->id);
	json_t *note;

	if (dir != NULL && path != NULL) {
		mkdir(dir, 0700);
		note = json_pack("{s:s}", "scratch", s->scratch);
		if (json_dump_file(note, path, JSON_COMPACT) == -1) {
			log_warn("cannot write %s", path);
			json_decref(note);
			free(dir);
			free(path);
			return -1;
		}
		json_decref(note);
	}
	free(dir);
	free(path);
	return 0;
}

/* Remove the session's crash note (it is cleaned up). */
void
session_drop_note(const struct session *s)
{
	char *note;

	if ((note = session_path("notes", s->id)) != NULL) {
		unlink(note);
		free(note);
	}
}

/* The session as JSON. */
json_t *
session_to_json(const struct session *s)
{
	static const char *states[] = { "starting", "ready", "closing", "closed" };
	int running = session_hooks.commands_running != NULL ?
	    session_hooks.commands_running(s) : 0;
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
	if (j != NULL && s->with_client != 0)
		json_object_set_new(j, "close_with_client", json_true());
	if (j != NULL)
		shape_time(j, "created", s->created_ms);
	return j;
}

/* Free a session's memory (it is out of the list). */
void
session_free(struct session *s)
{
	free(s->title);
	strv_free(s->telemetry_noted);
	json_decref(s->keep_seen);
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
	session_spare_key_free(s->spare);
	session_spare_key_free(s->one_shot);
	free(s->spare_dump);
	free(s);
}

/* The names of the client's env that the sandbox does not get (the one
 * rule: PATH, LANG, LANGUAGE, LC_*, TERM, COLORTERM, TZ and the names the
 * profile lists in "env"; HOME, USER, LOGNAME and TMPDIR are sbox's own),
 * sorted, kept in s->env_dropped. */
void
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
json_t *
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
void
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
void
session_close_now(struct session *s, const char *reason, int sync)
{
	struct session_sequencer_close *seq;
	sbox_error err;
	char *note;

	if (s->state == SESSION_CLOSED || s->state == SESSION_CLOSING)
		return;
	if (s->spare != NULL) {	/* a spare not taken: never registered */
		session_spare_closed(s);
		return;
	}
	s->state = SESSION_CLOSING;
	session_close_children(s, sync);
	/* its approvals end, then its commands (command/command-session.c) */
	events_tell("session.closing", s->id, NULL);
	client_close_session(s->id);
	if (s->proxy != NULL) {
		proxy_proc_free(s->proxy);
		s->proxy = NULL;
	}
	/* git's sequencer state is checked now (the close answers at once)
	 * and again once every process has ended */
	session_sequencer_closed(NULL, session_sequencer_prepare(s, 0));
	seq = session_sequencer_prepare(s, 1);
	if (s->ct != NULL) {
		if (sync)
			container_destroy(s->ct);
		else
			container_close(s->ct, session_sequencer_closed, seq);
		if (!sync)
			seq = NULL;
		s->ct = NULL;
	}
	session_sequencer_closed(NULL, seq);
	rmtree(s->scratch);
	diskguard_freed(NULL, NULL);
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
	session_unregister(s);
	/* a one-shot session: the next one like it is made ahead (not at
	 * shutdown, nor for a sandbox that ended by itself) */
	if (s->one_shot != NULL && !sync && strcmp(reason, "closed by a client") == 0) {
		session_spare_later(s->one_shot);
		s->one_shot = NULL;
	}
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

	session_spare_stop();
	while ((s = TAILQ_FIRST(&session_list)) != NULL)
		session_close_now(s, reason, 1);
}
