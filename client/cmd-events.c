/* cmd-events.c: sbox events [--since SEQ] [--follow] [TOPIC...]: print the
 * stored events (after SEQ) and exit; --follow: then the live ones as they
 * come. */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many replayed events a dump waits for, and how many came. */
struct cmd_events_dump {
	int       follow;
	int       json;     /* --json: the lines as they are */
	long long want;     /* -1 until the answer says */
	long long got;
};

/* Print one events.event notification as one JSON line; a dump stops after
 * the last replayed one. */
static int
cmd_events_print(const char *method, json_t *params, void *arg)
{
	struct cmd_events_dump *dm = arg;
	/* without --json, every character beyond ASCII as \uXXXX (bidi,
	 * separators, C1: nothing a sandbox chose drives the terminal; the
	 * line is the same JSON) */
	size_t flags = JSON_COMPACT | JSON_SORT_KEYS | (!dm->json ?
	    JSON_ENSURE_ASCII : 0);
	char *s;

	if (strcmp(method, "events.event") != 0)
		return 0;
	if ((s = json_dumps(params, flags)) != NULL) {
		printf("%s\n", s);
		fflush(stdout);
		free(s);
	}
	if (json_is_true(json_object_get(params, "replayed")))
		dm->got++;
	return !dm->follow && dm->want >= 0 && dm->got >= dm->want;
}

/* sbox events [--since SEQ] [--follow] [TOPIC...]. */
int
cmd_events(const struct client_opts *o, int argc, char **argv)
{
	struct cmd_events_dump dm = { 0, o->json, -1, 0 };
	struct client *cl;
	json_t *topics, *r, *params;
	long long since = -1;
	sbox_error err;
	char *end;
	int i;

	topics = json_array();
	for (i = 1; i < argc; i++) {
		if ((strcmp(argv[i], "--since") == 0 && i + 1 < argc) ||
		    strncmp(argv[i], "--since=", 8) == 0) {
			const char *v = argv[i][7] == '=' ? argv[i] + 8 : argv[++i];
			since = strtoll(v, &end, 10);
			if (v[0] == '\0' || *end != '\0' || since < 0) {
				json_decref(topics);
				return client_usage("--since takes an event's seq, "
				    "not \"%s\"", v);
			}
			continue;
		}
		if (strcmp(argv[i], "--follow") == 0 ||
		    strcmp(argv[i], "-f") == 0) {
			dm.follow = 1;
			continue;
		}
		if (argv[i][0] == '-') {
			json_decref(topics);
			return client_usage("usage: sbox events [--since SEQ] "
			    "[--follow] [TOPIC...]");
		}
		json_array_append_new(topics, json_string(argv[i]));
	}
	if (!dm.follow && since < 0)	/* a dump: every stored event */
		since = 0;
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(topics);
		return client_fail(&err);
	}
	client_on_notify(cl, cmd_events_print, &dm);
	params = json_pack("{s:o}", "topics", topics);
	if (since >= 0)
		json_object_set_new(params, "since", json_integer(since));
	r = client_call(cl, "events.subscribe", params, NULL, 0, &err);
	if (r == NULL) {
		client_close(cl);
		return client_fail(&err);
	}
	dm.want = json_integer_value(json_object_get(r, "replayed"));
	json_decref(r);
	if (!dm.follow && dm.got >= dm.want) {
		client_close(cl);
		return EXIT_OK;
	}
	if (client_wait(cl, &err) == 0 && !dm.follow) {
		client_close(cl);
		return EXIT_OK;
	}
	client_close(cl);
	return client_fail(&err);
}
