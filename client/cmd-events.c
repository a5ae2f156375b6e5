/* cmd-events.c: sbox events [--since SEQ] [TOPIC...]: print events as they
 * come (with --since, first the stored ones after SEQ). */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print one events.event notification as one JSON line. */
static int
cmd_events_print(const char *method, json_t *params, void *arg)
{
	/* without --json, every character beyond ASCII as \uXXXX (bidi,
	 * separators, C1: nothing a sandbox chose drives the terminal; the
	 * line is the same JSON) */
	size_t flags = JSON_COMPACT | JSON_SORT_KEYS | (arg == NULL ?
	    JSON_ENSURE_ASCII : 0);
	char *s;

	if (strcmp(method, "events.event") != 0)
		return 0;
	if ((s = json_dumps(params, flags)) != NULL) {
		printf("%s\n", s);
		fflush(stdout);
		free(s);
	}
	return 0;
}

/* sbox events [TOPIC...]. */
int
cmd_events(const struct client_opts *o, int argc, char **argv)
{
	struct client *cl;
	json_t *topics, *r, *params;
	long long since = -1;
	sbox_error err;
	char *end;
	int i;

	topics = json_array();
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--since") == 0 && i + 1 < argc) {
			since = strtoll(argv[++i], &end, 10);
			if (*end != '\0' || since < 0) {
				json_decref(topics);
				return client_usage("--since takes an event's seq, "
				    "not \"%s\"", argv[i]);
			}
			continue;
		}
		if (argv[i][0] == '-') {
			json_decref(topics);
			return client_usage("usage: sbox events [--since SEQ] "
			    "[TOPIC...]");
		}
		json_array_append_new(topics, json_string(argv[i]));
	}
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(topics);
		return client_fail(&err);
	}
	client_on_notify(cl, cmd_events_print, o->json ? (void *)o : NULL);
	params = json_pack("{s:o}", "topics", topics);
	if (since >= 0)
		json_object_set_new(params, "since", json_integer(since));
	r = client_call(cl, "events.subscribe", params, NULL, 0, &err);
	if (r == NULL) {
		client_close(cl);
		return client_fail(&err);
	}
	json_decref(r);
	client_wait(cl, &err);
	client_close(cl);
	return client_fail(&err);
}
