/* cmd-cache.c: sbox cache list|clear [--profile P] [--project DIR]: sbox's
 * own package caches (one set per project and profile, or per profile with
 * "caches": "profile"): their sizes, and freeing them. The host's caches
 * are never touched. */
#include "client/client.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD_CACHE_USAGE \
	"usage: sbox cache list [--profile P] [--project DIR] [--json]\n" \
	"       sbox cache clear [--profile P] [--project DIR] [--json]"

/* A byte count as text ("12.3 MiB") in buf. */
static const char *
cmd_cache_size(json_int_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	size_t u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lld B", (long long)n);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

/* An integer member (0 when absent). */
static json_int_t
cmd_cache_int(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* Print what cache.list said. */
static void
cmd_cache_print_list(const json_t *r)
{
	const json_t *p, *t;
	size_t i, j;
	char a[64];

	if (json_array_size(json_object_get(r, "profiles")) == 0) {
		printf("no package caches yet (%s)\n",
		    text_member(r, "root", "?"));
		return;
	}
	printf("%-14s %-16s %10s %8s  %s\n", "PROFILE", "TREE", "SIZE", "FILES",
	    "WHERE");
	json_array_foreach(json_object_get(r, "profiles"), i, p) {
		const char *name = json_string_value(json_object_get(p,
		    "profile"));
		const char *pj = json_string_value(json_object_get(p,
		    "project"));

		if (pj == NULL && cmd_cache_int(p, "bytes") == 0 &&
		    json_array_size(json_object_get(r, "profiles")) > 1)
			continue;	/* an unused shared set */
		printf("%-14s %s\n", name, pj ? pj : "(every project: "
		    "\"caches\": \"profile\")");

		json_array_foreach(json_object_get(p, "trees"), j, t) {
			if (cmd_cache_int(t, "bytes") == 0)
				continue;
			printf("%-14s %-16s %10s %8lld  %s\n", text_show(name),
			    text_member(t, "name", "?"),
			    cmd_cache_size(cmd_cache_int(t, "bytes"), a, sizeof a),
			    (long long)cmd_cache_int(t, "files"),
			    text_member(t, "path", "?"));
		}
		printf("%-14s %-16s %10s %8lld  %s%s\n", text_show(name), "(total)",
		    cmd_cache_size(cmd_cache_int(p, "bytes"), a, sizeof a),
		    (long long)cmd_cache_int(p, "files"),
		    text_member(p, "path", "?"),
		    json_is_true(json_object_get(p, "exists")) ? "" :
		    " (not made yet)");
		if (cmd_cache_int(p, "skipped") > 0)
			printf("%-14s %lld entries not counted (links to other "
			    "devices, too deep, unreadable)\n", text_show(name),
			    (long long)cmd_cache_int(p, "skipped"));
	}
	printf("total %s\n", cmd_cache_size(cmd_cache_int(r, "bytes"), a,
	    sizeof a));
}

/* Print what cache.clear said. */
static void
cmd_cache_print_clear(const json_t *r)
{
	const json_t *p;
	size_t i;
	char a[64];

	json_array_foreach(json_object_get(r, "profiles"), i, p) {
		printf("%s%s%s: freed %s", text_member(p, "profile", "?"),
		    json_is_string(json_object_get(p, "project")) ? " " : "",
		    text_member(p, "project", ""),
		    cmd_cache_size(cmd_cache_int(p, "freed_bytes"), a, sizeof a));
		if (cmd_cache_int(p, "left") > 0)
			printf(", %lld entries left (not removable)",
			    (long long)cmd_cache_int(p, "left"));
		printf("\n");
	}
	printf("freed %s in total\n", cmd_cache_size(cmd_cache_int(r,
	    "freed_bytes"), a, sizeof a));
}

/* sbox cache list|clear [--profile P] [--project DIR] [--json]. */
int
cmd_cache(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "project", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts mo = *o;
	struct client *cl;
	json_t *params, *r;
	char *dir;
	sbox_error err;
	int ch, clear;

	if (argc < 2 || (strcmp(argv[1], "list") != 0 &&
	    strcmp(argv[1], "clear") != 0))
		return client_usage("%s", CMD_CACHE_USAGE);
	clear = strcmp(argv[1], "clear") == 0;
	params = json_object();
	optind = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, "+p:P:j", opts, NULL)) != -1) {
		if (ch == 'p')
			json_object_set_new(params, "profile", json_string(optarg));
		else if (ch == 'P') {
			if ((dir = realpath(optarg, NULL)) == NULL) {
				json_decref(params);
				return client_usage("no folder %s", optarg);
			}
			json_object_set_new(params, "project", json_string(dir));
			free(dir);
		} else if (ch == 'j')
			mo.json = 1;
		else {
			json_decref(params);
			return client_usage("%s", CMD_CACHE_USAGE);
		}
	}
	if (optind != argc - 1) {
		json_decref(params);
		return client_usage("%s", CMD_CACHE_USAGE);
	}
	error_clear(&err);
	if ((cl = client_connect(&mo, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	r = client_call(cl, clear ? "cache.clear" : "cache.list", params, NULL,
	    0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (mo.json)
		client_print_json(r);
	else if (clear)
		cmd_cache_print_clear(r);
	else
		cmd_cache_print_list(r);
	json_decref(r);
	return EXIT_OK;
}
