/* command-session.c: what the rooms below ask of a session's commands
 * (through session_hooks, daemon/hooks.h: they include nothing of
 * command/): how many run; writing them again into a re-created database
 * (same ids: the running ones, and the finished ones still kept in memory,
 * with their end); and what they tell on the event bus: a session closing,
 * a host it could not reach, a file refused, a full cache root (whose
 * writers are killed). */
#include "daemon/command/command.h"

#include <signal.h>
#include <string.h>

#include "daemon/command/approval.h"
#include "daemon/container/diskguard.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "store/store.h"

/* The number of running commands of session s. */
int
command_session_running(const struct session *s)
{
	const struct command *c;
	int running = 0;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state == COMMAND_RUNNING)
			running++;
	}
	return running;
}

/* Insert one command of a live session again (same id); a finished one
 * with its end (kept in memory, as command.read shows it). */
static int
command_session_one(struct session *s, struct command *c, sbox_error *err)
{
	json_t *j;
	int rc;

	struct store_command sc;
	json_t *argv = json_array();
	long long id;
	char **a;

	for (a = c->argv; a != NULL && *a != NULL; a++)
		json_array_append_new(argv, json_string(*a));
	memset(&sc, 0, sizeof sc);
	sc.session = s->id;
	sc.argv = argv;
	sc.cwd = c->cwd;
	sc.detach = c->detach;
	sc.outside = c->outside;
	sc.id = c->id;
	sc.started_at = store_clock_now_ms() - (sboxd_now_ms() - c->start_ms);
	id = store_command_start(sboxd.store, &sc, err);
	json_decref(argv);
	if (id < 0)
		return -1;
	if (c->state == COMMAND_RUNNING)
		return 0;
	j = command_state_to_json(c);
	rc = store_command_finish(sboxd.store, c->id,
	    json_is_integer(json_object_get(j, "exit_code")) ?
	    (int)json_integer_value(json_object_get(j, "exit_code")) : -1,
	    json_is_integer(json_object_get(j, "signal")) ?
	    (int)json_integer_value(json_object_get(j, "signal")) : -1,
	    json_integer_value(json_object_get(j, "duration_ms")),
	    json_string_value(json_object_get(j, "state")),
	    json_object_get(j, "blocked"), err);
	json_decref(j);
	return rc == -1 ? -1 : 0;
}

/* The database was re-created: insert the commands of session s again;
 * adds those written to *written, returns how many failed (err: the last
 * failure, each logged). */
int
command_session_rewrite(struct session *s, int *written, sbox_error *err)
{
	struct command *c;
	sbox_error e;
	int failed = 0;

	TAILQ_FOREACH(c, &s->commands, entry) {
		error_clear(&e);
		if (command_session_one(s, c, &e) == -1) {
			log_error("store: command %lld: %s", c->id, e.message);
			*err = e;
			failed++;
		} else
			(*written)++;
	}
	return failed;
}

/* The disk guard found root full: kill the running commands (inside a
 * sandbox) of the sessions that bind it. */
void
command_session_stop_writers(const char *root)
{
	struct command *c;
	sbox_error err;

	for (c = command_state_next(NULL); c != NULL; c = command_state_next(c)) {
		if (c->state != COMMAND_RUNNING || c->exited || c->outside ||
		    !diskguard_binds(c->s->plan, root))
			continue;
		error_clear(&err);
		if (command_kill(c, SIGKILL, &err) == 0)
			log_warn("killed command %lld of session %s: %s is over "
			    "its limit", c->id, c->s->id, root);
	}
}

/* The live (or closing) session an event names, or NULL. */
static struct session *
command_session_of(const char *session)
{
	return session != NULL ? session_find(session, NULL) : NULL;
}

/* session.closing: its approvals end, then its commands. */
void
command_session_on_closing(const char *topic, const char *session,
    const json_t *data, void *arg)
{
	struct session *s = command_session_of(session);

	(void)topic; (void)data; (void)arg;
	if (s == NULL)
		return;
	approval_session_closed(s);
	command_session_closed(s);
}

/* session.host_failed {host, port, cause}. */
void
command_session_on_host_failed(const char *topic, const char *session,
    const json_t *data, void *arg)
{
	struct session *s = command_session_of(session);
	const char *host = json_string_value(json_object_get(data, "host"));
	const char *cause = json_string_value(json_object_get(data, "cause"));

	(void)topic; (void)arg;
	if (s != NULL && host != NULL && cause != NULL)
		command_note_unreachable(s, host, (int)json_integer_value(
		    json_object_get(data, "port")), cause);
}

/* session.file_refused {ct_id, path, op, rule, message, reason, pid,
 * process}. */
void
command_session_on_file_refused(const char *topic, const char *session,
    const json_t *data, void *arg)
{
	struct session *s = command_session_of(session);
	const char *path = NULL, *op = NULL, *rule = NULL, *message = NULL;
	const char *reason = NULL, *process = NULL;
	json_int_t ct_id = 0;
	int pid = 0;

	(void)topic; (void)arg;
	if (s == NULL || json_unpack((json_t *)data, "{s:I, s:s, s:s, s:s, "
	    "s:s, s:s, s:i, s:s}", "ct_id", &ct_id, "path", &path, "op", &op,
	    "rule", &rule, "message", &message, "reason", &reason, "pid", &pid,
	    "process", &process) < 0)
		return;
	command_note_file(s, (uint64_t)ct_id, path, op, rule, message, reason,
	    pid, process);
}

/* disk.root_full {root}. */
void
command_session_on_root_full(const char *topic, const char *session,
    const json_t *data, void *arg)
{
	const char *root = json_string_value(json_object_get(data, "root"));

	(void)topic; (void)session; (void)arg;
	if (root != NULL)
		command_session_stop_writers(root);
}
