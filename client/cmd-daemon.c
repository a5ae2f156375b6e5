/* cmd-daemon.c: sbox version, sbox daemon status|stop|reload. */
#include "client/client.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
			    text_member(r, "version", "?"),
			    (long long)json_integer_value(json_object_get(r, "pid")));
		else
			printf("sboxd not running\n");
	}
	json_decref(r);
	return EXIT_OK;
}

/* Print the store's health: ok, or what fails and what waits. */
static void
cmd_daemon_print_store(const json_t *h)
{
	long long delayed, dropped, drefs;

	if (!json_is_object(h))
		return;
	delayed = json_integer_value(json_object_get(h, "delayed"));
	dropped = json_integer_value(json_object_get(h, "dropped"));
	drefs = json_integer_value(json_object_get(h, "dropped_refusals"));
	if (json_is_true(json_object_get(h, "ok")))
		printf("store health ok");
	else
		printf("store health DEGRADED: %s", json_string_value(
		    json_object_get(h, "error")) ? json_string_value(
		    json_object_get(h, "error")) : json_string_value(
		    json_object_get(h, "recovery_error")) ?
		    json_string_value(json_object_get(h, "recovery_error")) :
		    "?");
	printf(" (%lld record(s) waiting to be written, %lld record(s) "
	    "dropped, %lld refusal(s) lost; database re-created %lld "
	    "time(s))\n", delayed + (long long)json_integer_value(
	    json_object_get(h, "pending")), dropped, drefs,
	    (long long)json_integer_value(json_object_get(h, "reopened")));
}

/* Print daemon.status for a person. */
static void
cmd_daemon_print_status(const json_t *r)
{
	long long up = json_integer_value(json_object_get(r, "uptime_ms")) / 1000;

	printf("sboxd %s, pid %lld, up %lldh%02lldm%02llds\n",
	    text_member(r, "version", "?"),
	    (long long)json_integer_value(json_object_get(r, "pid")),
	    up / 3600, up / 60 % 60, up % 60);
	printf("connections  %lld\n",
	    (long long)json_integer_value(json_object_get(r, "connections")));
	printf("sessions     %lld\n",
	    (long long)json_integer_value(json_object_get(r, "sessions")));
	printf("socket       %s\n", text_member(r, "socket", "?"));
	printf("store        %s\n", text_member(r, "store", "?"));
	printf("config       %s\n", text_member(r, "config", "?"));
	cmd_daemon_print_store(json_object_get(r, "store_health"));
}

/* Has process pid exited (gone, or a zombie nobody reaped yet)? */
static int
cmd_daemon_exited(long long pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int gone;

	if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%lld/stat", pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	gone = fgets(buf, sizeof buf, f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL && (p[2] == 'Z' || p[2] == 'X');
	fclose(f);
	return gone;
}

/* Wait until sboxd (pid) has exited, up to 30 s; 0 when it has. */
static int
cmd_daemon_wait_exit(long long pid)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1500; i++) {
		if (cmd_daemon_exited(pid))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* sbox daemon stop: ask sboxd to stop, then wait until it has exited. */
static int
cmd_daemon_stop(const struct client_opts *o)
{
	struct client_opts ns = *o;
	sbox_error err;
	long long pid;
	json_t *r;

	ns.no_start = 1;
	error_clear(&err);
	if ((r = cmd_daemon_simple(&ns, "daemon.stop", &err)) == NULL) {
		if (strcmp(err.name, E_UNAVAILABLE) == 0)
			error_set(&err, E_UNAVAILABLE, "no sboxd is running (nothing "
			    "to stop)");
		return client_fail(&err);
	}
	pid = (long long)json_integer_value(json_object_get(r, "pid"));
	if (pid > 0 && cmd_daemon_wait_exit(pid) == -1) {
		json_decref(r);
		error_set(&err, E_INTERNAL, "sboxd (pid %lld) is still stopping "
		    "after 30 s", pid);
		return client_fail(&err);
	}
	json_object_set_new(r, "stopping", json_false());
	json_object_set_new(r, "stopped", json_true());
	if (o->json)
		client_print_json(r);
	else
		printf("sboxd (pid %lld) stopped\n", pid);
	json_decref(r);
	return EXIT_OK;
}

/* sbox daemon status|stop|reload. */
int
cmd_daemon(const struct client_opts *o, int argc, char **argv)
{
	json_t *r;
	sbox_error err;

	if (argc != 2 || (strcmp(argv[1], "status") != 0 &&
	    strcmp(argv[1], "stop") != 0 && strcmp(argv[1], "reload") != 0))
		return client_usage(argc < 2 ? "sbox daemon needs a subcommand: "
		    "status, stop, reload" : "unexpected argument \"%s\"",
		    argv[argc < 3 ? 1 : 2]);
	error_clear(&err);
	if (strcmp(argv[1], "stop") == 0)
		return cmd_daemon_stop(o);
	if (strcmp(argv[1], "reload") == 0) {
		struct client_opts ns = *o;
		ns.no_start = 1;
		if ((r = cmd_daemon_simple(&ns, "daemon.reload", &err)) == NULL)
			return client_fail(&err);
		if (o->json)
			client_print_json(r);
		else
			printf("config reloaded from %s\n", text_member(r,
			    "config", "?"));
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
