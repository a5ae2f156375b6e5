/* cmd-daemon.c: sbox version, sbox daemon status|stop. */
#include "client/client.h"

#include <stdio.h>
#include <string.h>

/* Run one method with no parameters and return its result, or NULL. */
static json_t *
cmd_daemon_simple(const struct client_opts *o, const char *method,
    sbox_error *err)
{
	struct client *cl;
	json_t *r;

	if ((cl = client_connect(o, err)) == NULL)
		return NULL;
	r = client_call(cl, method, NULL, NULL, 0, err);
	client_close(cl);
	return r;
}

/* sbox version: the client's version, and the daemon's when one runs. */
int
cmd_version(const struct client_opts *o, int argc, char **argv)
{
	struct client_opts quiet = *o;
	json_t *r;
	sbox_error err;

	(void)argv;
	if (argc > 1)
		return client_usage("usage: sbox version");
	quiet.no_start = 1;
	error_clear(&err);
	r = cmd_daemon_simple(&quiet, "daemon.status", &err);
	if (o->json) {
		json_t *out = json_pack("{s:s, s:s?}", "client", SBOX_VERSION,
		    "daemon", r ? json_string_value(json_object_get(r, "version")) :
		    NULL);
		client_print_json(out);
		json_decref(out);
	} else {
		printf("sbox %s\n", SBOX_VERSION);
		if (r != NULL)
			printf("sboxd %s (pid %lld)\n",
			    json_string_value(json_object_get(r, "version")),
			    (long long)json_integer_value(json_object_get(r, "pid")));
		else
			printf("sboxd not running\n");
	}
	json_decref(r);
	return EXIT_OK;
}

/* Print daemon.status for a person. */
static void
cmd_daemon_print_status(const json_t *r)
{
	long long up = json_integer_value(json_object_get(r, "uptime_ms")) / 1000;

	printf("sboxd %s, pid %lld, up %lldh%02lldm%02llds\n",
	    json_string_value(json_object_get(r, "version")),
	    (long long)json_integer_value(json_object_get(r, "pid")),
	    up / 3600, up / 60 % 60, up % 60);
	printf("connections  %lld\n",
	    (long long)json_integer_value(json_object_get(r, "connections")));
	printf("sessions     %lld\n",
	    (long long)json_integer_value(json_object_get(r, "sessions")));
	printf("socket       %s\n", json_string_value(json_object_get(r, "socket")));
	printf("store        %s\n", json_string_value(json_object_get(r, "store")));
	printf("config       %s\n", json_string_value(json_object_get(r, "config")));
}

/* sbox daemon status|stop. */
int
cmd_daemon(const struct client_opts *o, int argc, char **argv)
{
	json_t *r;
	sbox_error err;

	if (argc != 2 || (strcmp(argv[1], "status") != 0 &&
	    strcmp(argv[1], "stop") != 0))
		return client_usage("usage: sbox daemon status|stop");
	error_clear(&err);
	if (strcmp(argv[1], "stop") == 0) {
		struct client_opts ns = *o;
		ns.no_start = 1;
		if ((r = cmd_daemon_simple(&ns, "daemon.stop", &err)) == NULL)
			return client_fail(&err);
		if (o->json)
			client_print_json(r);
		else
			printf("sboxd (pid %lld) is stopping\n",
			    (long long)json_integer_value(json_object_get(r, "pid")));
		json_decref(r);
		return EXIT_OK;
	}
	if ((r = cmd_daemon_simple(o, "daemon.status", &err)) == NULL)
		return client_fail(&err);
	if (o->json)
		client_print_json(r);
	else
		cmd_daemon_print_status(r);
	json_decref(r);
	return EXIT_OK;
}
