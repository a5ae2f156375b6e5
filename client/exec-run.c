/* exec-run.c: running a prepared command.exec for `session exec`,
 * `session send` and `run`: the warnings about --env names the profile
 * drops, the note when the command waits for approval (an exclude
 * pattern), the choice of a terminal of the sandbox, the run itself
 * (with the terminal, detached, or --json in pipes mode), then the
 * refusals explained and the questions after them (ask.c). */
#include "client/client.h"
#include "policy/envfilter.h"
#include "policy/policy.h"
#include "policy/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The session record (session.info, brief: a live session's fields from
 * sboxd's memory, which hold all a command run reads), or NULL (quietly). */
static json_t *
exec_run_info(struct client *cl, json_t *id)
{
	sbox_error err;

	error_clear(&err);
	return client_call(cl, "session.info", json_pack("{s:O, s:b}", "session",
	    id, "brief", 1), NULL, 0, &err);
}

/* Warn about --env variables the session's profile will drop (secret-looking
 * names it does not name); returns them as a JSON array of warnings. */
static json_t *
exec_run_env_warnings(const json_t *params, const json_t *session)
{
	json_t *names = json_object_get(json_object_get(session,
	    "resolved_profile"), "env"), *w = json_array(), *v;
	const char *k, *prof = json_string_value(json_object_get(session,
	    "profile"));
	char **list;
	size_t i, n = json_array_size(names);

	if (session == NULL || json_is_false(json_object_get(session, "sandboxed")))
		return w;
	if ((list = calloc(n + 1, sizeof *list)) == NULL)
		return w;
	json_array_foreach(names, i, v)
		list[i] = (char *)json_string_value(v);
	json_object_foreach((json_t *)json_object_get(params, "env"), k, v) {
		char *msg;
		if (!envfilter_is_secret(k) || envfilter_named(list, k))
			continue;
		if (asprintf(&msg, "%s is not passed to the command: its name looks "
		    "like a secret and profile %s does not name it (add it to the "
		    "profile's \"env\")", k, prof ? prof : "?") == -1)
			continue;
		client_warn("%s", msg);
		json_array_append_new(w, json_string(msg));
		free(msg);
	}
	free(list);
	return w;
}

/* Does a command match the profile's `exclude` patterns? Then it waits for
 * a person to allow it to run outside the sandbox: say so when `say`. */
static int
exec_run_note_exclude(const json_t *params, const json_t *info, int say)
{
	json_t *ex = json_object_get(json_object_get(info, "resolved_profile"),
	    "exclude"), *argv = json_object_get(params, "argv"), *v;
	struct profile p;
	char **pats, **av;
	size_t i;
	int m = 0;

	if (json_array_size(ex) == 0 || json_array_size(argv) == 0)
		return 0;
	pats = calloc(json_array_size(ex) + 1, sizeof *pats);
	av = calloc(json_array_size(argv) + 1, sizeof *av);
	if (pats != NULL && av != NULL) {
		json_array_foreach(ex, i, v)
			pats[i] = (char *)json_string_value(v);
		json_array_foreach(argv, i, v)
			av[i] = (char *)json_string_value(v);
		memset(&p, 0, sizeof p);
		p.exclude = pats;
		if ((m = policy_exclude_match(&p, av)) && say)
			fprintf(stderr, "sbox: this command matches an exclude "
			    "pattern of profile %s: it runs outside the sandbox once "
			    "a person allows it ('sbox approvals --watch' or 'sbox "
			    "approve ID'); waiting for the decision...\n",
			    text_member(info, "profile", "?"));
	}
	free(pats);
	free(av);
	return m;
}

/* Run it on a terminal of the sandbox? Always with -t (an error without a
 * terminal or a sandbox, said by whoever sees it); by default when stdin
 * and stdout are terminals, the session is sandboxed and the command does
 * not go outside through an exclude pattern. */
static int
exec_run_use_tty(const struct client_opts *o, const json_t *params,
    const json_t *info)
{
	if (o->tty == 2)
		return 1;
	return o->tty == 1 && exec_tty_possible() && info != NULL &&
	    json_is_true(json_object_get(info, "sandboxed")) &&
	    !exec_run_note_exclude(params, info, 0);
}

/* What a command run says from the session's record before it waits. */
struct exec_run_early {
	long long      id;        /* session.info's request */
	const json_t  *session;   /* the caller's record, or NULL */
	json_t        *params;
	json_t        *info;      /* its answer */
	json_t        *warnings;
	int            detach;
	int            done;
};

/* The session's record arrived (or not: info NULL): the notes and
 * warnings that go before the command's own output. */
static void
exec_run_early_notes(struct exec_run_early *e)
{
	if (e->done)
		return;
	e->done = 1;
	if (e->info != NULL && e->session == NULL &&
	    json_is_false(json_object_get(e->info, "sandboxed")))
		exec_note_profile(e->info, 0);
	e->warnings = exec_run_env_warnings(e->params, e->info);
	if (e->session != NULL && e->session != e->info)
		/* warnings found when the session was made */
		json_array_extend(e->warnings, json_object_get(e->session,
		    "warnings"));
	if (!e->detach)
		exec_run_note_exclude(e->params, e->info, 1);
}

/* exec_after_send: command.exec went out with session.info before it:
 * read that answer (sboxd gives it first) and say what goes first. */
static void
exec_run_early_cb(struct client *cl, void *arg)
{
	struct exec_run_early *e = arg;
	sbox_error err;

	error_clear(&err);
	e->info = client_wait_reply(cl, e->id, &err);
	exec_run_early_notes(e);
}

/* Run a prepared command.exec: with the terminal, detached, or (--json) in
 * pipes mode with its output inside the one JSON document. session is the
 * session record when the caller has it (else it is asked for when needed). */
int
exec_run_params(const struct client_opts *o, struct client *cl,
    json_t *params, int detach, const json_t *session)
{
	struct exec_run_early e = { .session = session, .params = params,
	    .detach = detach };
	json_t *info = NULL, *warnings, *r, *again = NULL;
	sbox_error err;
	int status, tty, piped;

	error_clear(&err);
	/* the stored record: its resolved profile says what is dropped and
	 * what goes through approval. Without a terminal to decide on, it is
	 * asked for with the command itself, in the same write (one round
	 * trip fewer, one wakeup of sboxd): sboxd answers it first, before
	 * the command runs, and its notes are said before the command's
	 * output comes */
	piped = !detach && !o->json && (o->tty == 0 || (o->tty == 1 &&
	    !exec_tty_possible()));
	if (piped) {
		/* (asked before the held request: one answer at a time) */
		exec_relay_filter(o, cl);
		client_hold_next(cl);
	}
	if (piped && (e.id = client_send(cl, "session.info", json_pack(
	    "{s:O, s:b}", "session", json_object_get(params, "session"),
	    "brief", 1), NULL, 0, &err)) > 0) {
		if (ask_possible(o))
			again = json_deep_copy(params);
		/* (the request takes params: the notes read them after) */
		json_incref(params);
		exec_after_send(exec_run_early_cb, &e);
		r = exec_with_terminal(cl, params, &err);
		if (!e.done) {	/* the request could not go out */
			sbox_error e2;
			error_clear(&e2);
			e.info = client_wait_reply(cl, e.id, &e2);
			exec_run_early_notes(&e);
		}
		json_decref(params);
		info = e.info;
		warnings = e.warnings;
		if (session == NULL)
			session = info;
		goto ran;
	}
	error_clear(&err);
	e.info = info = exec_run_info(cl, json_object_get(params, "session"));
	exec_run_early_notes(&e);
	warnings = e.warnings;
	if (session == NULL)
		session = info;
	tty = !detach && !o->json && exec_run_use_tty(o, params, info);
	/* the request as sent, for running it again after a question */
	if (!detach && ask_possible(o))
		again = json_deep_copy(params);
	if (again != NULL && tty)
		json_object_set_new(again, "tty", json_true());
	if (detach) {
		json_object_set_new(params, "detach", json_true());
		json_object_set_new(params, "stdio", json_string("none"));
		r = client_call(cl, "command.exec", params, NULL, 0, &err);
	} else if (o->json) {
		json_object_set_new(params, "stdio", json_string("pipes"));
		r = client_call(cl, "command.exec", params, NULL, 0, &err);
	} else if (tty) {
		exec_live_set(info, o->one_shot);
		r = exec_tty_run(o, cl, params, &err);
	}
	else {
		exec_relay_filter(o, cl);
		r = exec_with_terminal(cl, params, &err);
	}
ran:
	if (r == NULL) {
		json_decref(info);
		json_decref(warnings);
		json_decref(again);
		return client_fail(&err);
	}
	exec_mark_sandboxed(r, session);
	if (json_array_size(warnings) > 0)
		json_object_set(r, "warnings", warnings);
	json_decref(warnings);
	if (detach) {
		json_decref(info);
		if (o->json)
			client_print_json(r);
		else
			printf("%lld\n", (long long)json_integer_value(
			    json_object_get(r, "command")));
		if (!o->json && isatty(2))
			fprintf(stderr, "sbox: command %lld runs in the background; "
			    "see 'sbox command read|wait|kill %lld'\n",
			    (long long)json_integer_value(json_object_get(r, "command")),
			    (long long)json_integer_value(json_object_get(r, "command")));
		json_decref(r);
		return EXIT_OK;
	}
	exec_explain_blocked(r, info, o->one_shot);
	exec_print_blocked(r);
	if (o->json) {
		exec_add_text(r);
		client_print_json(r);
	}
	status = exec_status(r);
	if (again != NULL)
		status = ask_after(o, cl, again, r, info, status);
	json_decref(again);
	json_decref(info);
	json_decref(r);
	return status;
}
