/* cmd-config.c: sbox config check [FILE]: every error of a config file. */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/config.h"

/* The config file sboxd uses, when one runs (never starts one); caller
 * frees. */
static char *
cmd_config_daemon_path(const struct client_opts *o)
{
	struct client_opts ns = *o;
	struct client *cl;
	sbox_error err;
	char *path = NULL;
	json_t *r;

	ns.no_start = 1;
	error_clear(&err);
	if ((cl = client_connect(&ns, &err)) == NULL)
		return NULL;
	if ((r = client_call(cl, "daemon.status", NULL, NULL, 0, &err)) != NULL &&
	    json_is_string(json_object_get(r, "config")))
		path = strdup(json_string_value(json_object_get(r, "config")));
	json_decref(r);
	client_close(cl);
	return path;
}

/* sbox config reset: sboxd loads its config file as at start (a deleted
 * file becomes the empty config). */
static int
cmd_config_reset(const struct client_opts *o)
{
	struct client_opts ns = *o;
	struct client *cl;
	sbox_error err;
	json_t *r;

	ns.no_start = 1;
	error_clear(&err);
	if ((cl = client_connect(&ns, &err)) == NULL)
		return client_fail(&err);
	r = client_call(cl, "config.reset", NULL, NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (o->json)
		client_print_json(r);
	else if (json_is_true(json_object_get(r, "file")))
		printf("config reloaded from %s\n", json_string_value(
		    json_object_get(r, "config")));
	else
		printf("config reset: %s does not exist, sboxd runs with the "
		    "empty config\n", json_string_value(json_object_get(r,
		    "config")));
	json_decref(r);
	return EXIT_OK;
}

/* sbox config check [FILE]: exit 0 when valid, 1 with every error listed. */
int
cmd_config(const struct client_opts *o, int argc, char **argv)
{
	json_t *errors, *e, *out, *notes;
	char *path = NULL, *def = NULL;
	sbox_error err;
	size_t i;
	int n;

	if (argc == 2 && strcmp(argv[1], "reset") == 0)
		return cmd_config_reset(o);
	if (argc < 2 || strcmp(argv[1], "check") != 0)
		return client_usage("sbox config needs a subcommand: check, reset");
	if (argc > 3)
		return client_usage("unexpected argument \"%s\"", argv[3]);
	if (argc == 3)
		path = argv[2];
	else if ((path = def = cmd_config_daemon_path(o)) == NULL)
		path = def = config_default_path(NULL);
	errors = json_array();
	error_clear(&err);
	if ((n = config_check(path, NULL, errors, &err)) == -1) {
		json_decref(errors);
		free(def);
		return client_fail(&err);
	}
	notes = json_array();
	if (n == 0)
		config_check_notes(path, NULL, notes);
	if (o->json) {
		out = json_pack("{s:s?, s:b, s:O, s:O}", "path", path, "ok", n == 0,
		    "errors", errors, "notes", notes);
		client_print_json(out);
		json_decref(out);
	} else if (n == 0) {
		printf("%s: ok\n", path ? text_show(path) : "config");
		json_array_foreach(notes, i, e)
			printf("note: %s\n", text_show(json_string_value(e)));
	}
	else {
		json_array_foreach(errors, i, e)
			printf("%s\n", text_member(e, "message", "?"));
		printf("%d error%s\n", n, n == 1 ? "" : "s");
	}
	json_decref(errors);
	json_decref(notes);
	free(def);
	return n == 0 ? EXIT_OK : EXIT_FAILED;
}
