/* cmd-sandbox.c: sbox sandbox list|show|resolve|status|check: what the
 * profiles allow, for you and for your agents. */
#include "client/client.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON array of strings joined with ", " into buf ("-" when empty). */
static const char *
cmd_sandbox_join(const json_t *a, char *buf, size_t len)
{
	size_t i, n = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : NULL;
		char num[32];
		if (s == NULL && json_is_integer(v)) {
			snprintf(num, sizeof num, "%lld",
			    (long long)json_integer_value(v));
			s = num;
		}
		if (s == NULL || n >= len)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
		    text_show(s));
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "-");
	return buf;
}

/* Where a profile is chosen, as one line ("all sessions; provider ollama"). */
static const char *
cmd_sandbox_chosen(const json_t *cb, char *buf, size_t len)
{
	static const char *levels[][2] = { { "models", "model" },
	    { "providers", "provider" }, { "projects", "project" },
	    { "spaces", "space" } };
	char list[1024];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < 4 && n < len; i++) {
		json_t *a = json_object_get(cb, levels[i][0]);
		if (json_array_size(a) == 0)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? "; " : "",
		    levels[i][1], cmd_sandbox_join(a, list, sizeof list));
	}
	if (json_is_true(json_object_get(cb, "all_sessions")) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sall sessions",
		    n ? "; " : "");
	if (json_is_true(json_object_get(cb, "default")) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sthe default (nothing "
		    "chooses a sandbox)", n ? "; " : "");
	if (n == 0)
		snprintf(buf, len, "-");
	return buf;
}

/* A string member or def, safe to print (text.c; what the CLI prints
 * here may come from a sandbox or a client). */
static const char *
cmd_sandbox_s(const json_t *o, const char *key, const char *def)
{
	return text_member(o, key, def);
}

/* sbox sandbox list. */
static int
cmd_sandbox_list(const struct client_opts *o, int argc, char **argv)
{
	char chosen[2048];
	json_t *r, *p;
	size_t i;
	int rc = EXIT_OK;

	(void)argv;
	if (argc != 1)
		return client_usage("wrong arguments");
	if ((r = client_call_once(o, "sandbox.list", NULL, &rc)) == NULL)
		return rc;
	if (o->json) {
		client_print_json(r);
		json_decref(r);
		return EXIT_OK;
	}
	printf("%-12s %-10s %-11s %-7s %-40s %s\n", "PROFILE", "EXTENDS",
	    "NETWORK", "OUTSIDE", "FOLDERS", "CHOSEN BY");
	json_array_foreach(json_object_get(r, "profiles"), i, p) {
		printf("%-12s %-10s %-11s %-7s %-40s %s\n",
		    cmd_sandbox_s(p, "name", "?"),
		    cmd_sandbox_s(p, "extends", json_is_true(json_object_get(p,
		    "builtin")) ? "(built-in)" : "-"),
		    cmd_sandbox_s(p, "network", "?"),
		    cmd_sandbox_s(p, "run_outside", "?"),
		    cmd_sandbox_s(p, "folders", "?"),
		    cmd_sandbox_chosen(json_object_get(p, "chosen_by"), chosen,
		    sizeof chosen));
	}
	if (json_object_get(r, "config") != NULL)
		printf("\nconfig: %s\n", cmd_sandbox_s(r, "config", "?"));
	json_decref(r);
	return EXIT_OK;
}

/* What a network mode means, in a few words. */
static const char *
cmd_sandbox_network_text(const char *net)
{
	if (strcmp(net, "none") == 0)
		return "none: no host at all (the hosts below have no effect)";
	if (strcmp(net, "hosts") == 0)
		return "hosts: the hosts below only";
	if (strcmp(net, "registries") == 0)
		return "registries: the package registries and code hosts, and "
		    "the hosts below";
	if (strcmp(net, "internet") == 0)
		return "internet: any public host";
	return net;
}

/* Print one "key  value" line of show (skipped when value is NULL). */
static void
cmd_sandbox_line(const char *key, const char *value)
{
	if (value != NULL)
		printf("%-14s %s\n", key, text_show(value));
}

static void cmd_sandbox_print_disk(const json_t *disk);

/* Print which package caches a profile sees and where their writes go. */
static void
cmd_sandbox_print_caches(const json_t *c)
{
	const json_t *t;
	char line[1024];
	size_t i;

	if (json_array_size(json_object_get(c, "trees")) == 0) {
		cmd_sandbox_line("caches", cmd_sandbox_s(c, "note", "none"));
		return;
	}
	snprintf(line, sizeof line, "sbox's own, shared only by %s of profile "
	    "%s; the host's caches are never visible%s%s",
	    strcmp(cmd_sandbox_s(c, "scope", ""), "profile") == 0 ?
	    "every project (\"caches\": \"profile\")" :
	    "sessions of the same project", cmd_sandbox_s(c, "shared_with", "?"),
	    json_is_string(json_object_get(c, "root")) ? "; in " : "",
	    cmd_sandbox_s(c, "root", ""));
	cmd_sandbox_line("caches", line);
	json_array_foreach(json_object_get(c, "trees"), i, t) {
		snprintf(line, sizeof line, "%-20s %s%s(%s)", cmd_sandbox_s(t,
		    "path", "?"), cmd_sandbox_s(t, "writes_to", ""),
		    json_is_string(json_object_get(t, "writes_to")) ? "  " : "",
		    cmd_sandbox_s(t, "tools", ""));
		cmd_sandbox_line("", line);
	}
}

/* Print the protected names of show: kind, scope, name, what runs it. */
static void
cmd_sandbox_print_protected(const json_t *r)
{
	const json_t *a = json_object_get(r, "protected"), *e;
	char line[512];
	size_t i;

	if (json_is_string(json_object_get(r, "protected_error")))
		cmd_sandbox_line("protected", cmd_sandbox_s(r, "protected_error",
		    ""));
	if (!json_is_array(a))
		return;
	snprintf(line, sizeof line, "%zu names, read-only or uncreatable in "
	    "the project and the read-write folders (from %s)",
	    json_array_size(a), cmd_sandbox_s(r, "protected_file", "?"));
	cmd_sandbox_line("protected", line);
	json_array_foreach(a, i, e) {
		snprintf(line, sizeof line, "%-10s %-4s %-28s %s",
		    cmd_sandbox_s(e, "kind", "?"), cmd_sandbox_s(e, "scope", "?"),
		    cmd_sandbox_s(e, "name", "?"), cmd_sandbox_s(e, "comment", ""));
		cmd_sandbox_line("", line);
	}
}

/* Print what sandbox.show said, readable. */
static void
cmd_sandbox_print_show(const json_t *r)
{
	const json_t *f = json_object_get(r, "folders"), *lim, *v;
	char buf[4096], line[512];
	const char *k;
	size_t n;
	int sandboxed = json_is_true(json_object_get(r, "sandboxed"));

	snprintf(line, sizeof line, "%s%s%s%s", cmd_sandbox_s(r, "name", "?"),
	    json_is_true(json_object_get(r, "builtin")) ? " (built-in)" : "",
	    json_is_string(json_object_get(r, "extends")) ? ", extends " : "",
	    cmd_sandbox_s(r, "extends", ""));
	cmd_sandbox_line("profile", line);
	if (!sandboxed) {
		cmd_sandbox_line("sandboxed", "no: commands run with your own "
		    "rights, everything is reachable");
		cmd_sandbox_line("chosen by", cmd_sandbox_chosen(json_object_get(
		    r, "chosen_by"), buf, sizeof buf));
		return;
	}
	cmd_sandbox_line("sandboxed", "yes");
	cmd_sandbox_line("network", cmd_sandbox_network_text(cmd_sandbox_s(r,
	    "network", "?")));
	cmd_sandbox_line("hosts", cmd_sandbox_join(json_object_get(r, "hosts"),
	    buf, sizeof buf));
	if (json_array_size(json_object_get(r, "private_hosts")) > 0)
		cmd_sandbox_line("private hosts", cmd_sandbox_join(
		    json_object_get(r, "private_hosts"), buf, sizeof buf));
	if (json_array_size(json_object_get(r, "registry_hosts")) > 0)
		cmd_sandbox_line("registries", cmd_sandbox_join(json_object_get(r,
		    "registry_hosts"), buf, sizeof buf));
	json_array_foreach(json_object_get(r, "registry_sources"), n, v)
		printf("  %s: from %s\n", cmd_sandbox_s(v, "host", "?"),
		    cmd_sandbox_s(v, "source", "?"));
	if (json_is_string(json_object_get(r, "registries_error")))
		cmd_sandbox_line("registries", cmd_sandbox_s(r,
		    "registries_error", ""));
	cmd_sandbox_line("local ports", cmd_sandbox_join(json_object_get(r,
	    "local_ports"), buf, sizeof buf));
	cmd_sandbox_line("mcp servers", cmd_sandbox_join(json_object_get(r,
	    "mcp_servers"), buf, sizeof buf));
	cmd_sandbox_line("folders", json_is_true(json_object_get(r,
	    "project_access")) ? "the project, the session's scratch folder "
	    "and /tmp read-write; system folders and developer tools read-only; "
	    "the rest of home, credentials and sbox's own files out of reach" :
	    "the session's scratch folder and /tmp only (no project); "
	    "developer tools read-only");
	cmd_sandbox_line("  read-write", cmd_sandbox_join(json_object_get(f,
	    "read_write"), buf, sizeof buf));
	cmd_sandbox_line("  read-only", cmd_sandbox_join(json_object_get(f,
	    "read_only"), buf, sizeof buf));
	cmd_sandbox_line("  denied", cmd_sandbox_join(json_object_get(f, "deny"),
	    buf, sizeof buf));
	cmd_sandbox_print_caches(json_object_get(r, "caches"));
	cmd_sandbox_line("variables", cmd_sandbox_join(json_object_get(r, "env"),
	    buf, sizeof buf));
	n = 0;
	buf[0] = '\0';
	json_object_foreach((json_t *)json_object_get(r, "env_values"), k, v) {
		if (n < sizeof buf)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s (set)",
			    n ? ", " : "", k);
	}
	if (n > 0)
		cmd_sandbox_line("  set by provider", buf);
	cmd_sandbox_line("run outside", strcmp(cmd_sandbox_s(r, "run_outside",
	    ""), "never") == 0 ? "never" : "ask each time");
	cmd_sandbox_line("exclude", cmd_sandbox_join(json_object_get(r,
	    "exclude"), buf, sizeof buf));
	lim = json_object_get(r, "limits");
	n = 0;
	buf[0] = '\0';
	json_object_foreach((json_t *)lim, k, v) {
		if (n < sizeof buf)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %lld",
			    n ? ", " : "", k, (long long)json_integer_value(v));
	}
	cmd_sandbox_line("limits", n ? buf : "defaults");
	cmd_sandbox_line("chosen by", cmd_sandbox_chosen(json_object_get(r,
	    "chosen_by"), buf, sizeof buf));
	/* providers: their hosts are reachable in every network mode */
	json_array_foreach(json_object_get(r, "providers"), n, v)
		printf("%-14s %s: hosts %s; home %s%s\n", n == 0 ? "providers" : "",
		    cmd_sandbox_s(v, "name", "?"), cmd_sandbox_join(
		    json_object_get(v, "hosts"), buf, sizeof buf),
		    cmd_sandbox_s(v, "home", "empty"), json_is_false(
		    json_object_get(v, "sandbox_capable")) ? "; cannot run in a "
		    "sandbox" : "");
	cmd_sandbox_print_protected(r);
	json_array_foreach(json_object_get(r, "notes"), n, v)
		cmd_sandbox_line("note", json_string_value(v));
}

/* Print one list of a provider's part of a resolved profile. */
static void
cmd_sandbox_provider_line(const char *what, const json_t *a, const char *why)
{
	char buf[4096], line[4400];

	if (json_array_size(a) == 0)
		return;
	snprintf(line, sizeof line, "%s%s%s", cmd_sandbox_join(a, buf,
	    sizeof buf), why[0] ? ": " : "", why);
	cmd_sandbox_line(what, line);
}

/* Print a provider's kept home files, one line each with its keys. */
static void
cmd_sandbox_print_kept(const json_t *entry)
{
	const json_t *f;
	char line[600];
	size_t i;

	json_array_foreach(json_object_get(entry, "account_keep"), i, f) {
		snprintf(line, sizeof line, "%s: only its %zu listed keys pass "
		    "in and back (sbox --json sandbox show: account_keep)",
		    text_member(f, "file", "?"),
		    json_array_size(json_object_get(f, "keys")));
		cmd_sandbox_line("  kept", line);
	}
}

/* Print what a session of provider name gets (res: the resolved profile
 * of sandbox.resolve, entry: its providers entry of sandbox.show or NULL). */
static void
cmd_sandbox_print_provider(const char *name, const json_t *res,
    const json_t *entry)
{
	const json_t *v;
	char line[512];

	snprintf(line, sizeof line, "%s (%s)", name, entry == NULL ?
	    "unknown: neither built in nor in the config" :
	    json_is_true(json_object_get(entry, "builtin")) ?
	    "built in; a config entry of the same name extends it" :
	    "from the config");
	printf("\n");
	cmd_sandbox_line("provider", line);
	cmd_sandbox_provider_line("  hosts", json_object_get(res,
	    "provider_hosts"), "reachable in every network mode");
	cmd_sandbox_provider_line("  account", json_object_get(res,
	    "account_folders"), "read-only for its agent but for what it "
	    "writes while it works (below)");
	cmd_sandbox_provider_line("  writable", json_object_get(res,
	    "account_writable"), "what its agent writes while it works "
	    "(transcripts, history, todos, logs, caches)");
	cmd_sandbox_provider_line("  sign-in", json_object_get(res,
	    "account_signin"), "readable, never writable");
	cmd_sandbox_provider_line("  private", json_object_get(res,
	    "account_private"), "empty per session, discarded at close (the "
	    "host's folder is never written)");
	cmd_sandbox_print_kept(entry);
	cmd_sandbox_provider_line("  read-only", json_object_get(res,
	    "account_protect"), "files that make the agent run programs "
	    "later (hooks, settings that name commands), even for it");
	cmd_sandbox_provider_line("  hidden", json_object_get(res,
	    "hidden_accounts"), "the other agents' account folders");
	cmd_sandbox_provider_line("  keys", entry ? json_object_get(entry,
	    "key_env") : NULL, "pass from your environment into its sessions");
	v = json_object_get(res, "provider_home");
	if (json_is_string(v) && strcmp(json_string_value(v), "persistent") == 0)
		cmd_sandbox_line("  home", entry && json_is_string(json_object_get(
		    entry, "home_folder")) ? json_string_value(json_object_get(
		    entry, "home_folder")) : "a home folder of its own");
	cmd_sandbox_provider_line("  state", json_object_get(res,
	    "state_folders"), "agents' folders it may create in its own home");
}

/* The entry called name of show's providers, or NULL. */
static const json_t *
cmd_sandbox_provider_entry(const json_t *show, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(show, "providers"), i, v)
		if (strcmp(cmd_sandbox_s(v, "name", ""), name) == 0)
			return v;
	return NULL;
}

/* sbox sandbox show [PROFILE] [--provider P] [--json]: with a provider, the
 * profile its sessions get (unless PROFILE is given) and its part of it. */
static int
cmd_sandbox_show(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "provider", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts mo = *o;
	const char *provider = NULL, *profile;
	json_t *r, *res = NULL, *params;
	int ch, rc = EXIT_OK;

	while ((ch = getopt_long(argc, argv, "jP:", opts, NULL)) != -1) {
		if (ch == 'P')
			provider = optarg;
		else if (ch == 'j')
			mo.json = 1;
		else
			return client_usage("wrong arguments");
	}
	if (optind + 1 != argc && !(provider != NULL && optind == argc))
		return client_usage("wrong arguments");
	profile = optind < argc ? argv[optind] : NULL;
	if (provider != NULL) {
		params = json_pack("{s:s}", "provider", provider);
		if (profile != NULL)
			json_object_set_new(params, "sandbox", json_string(profile));
		if ((res = client_call_once(&mo, "sandbox.resolve", params,
		    &rc)) == NULL)
			return rc;
		profile = cmd_sandbox_s(res, "profile", "none");
	}
	if ((r = client_call_once(&mo, "sandbox.show", json_pack("{s:s}",
	    "profile", profile), &rc)) == NULL) {
		json_decref(res);
		return rc;
	}
	if (res != NULL)
		json_object_set(r, "provider", json_object_get(res, "resolved"));
	if (mo.json)
		client_print_json(r);
	else {
		cmd_sandbox_print_show(r);
		if (res != NULL)
			cmd_sandbox_print_provider(provider, json_object_get(res,
			    "resolved"), cmd_sandbox_provider_entry(r, provider));
	}
	if (res != NULL)
		client_print_warnings(res);
	json_decref(res);
	json_decref(r);
	return EXIT_OK;
}

/* sbox sandbox resolve [--project DIR] [--provider P] [--model M]
 * [--space S] [--sandbox PROFILE]. */
static int
cmd_sandbox_resolve(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "provider", required_argument, NULL, 'P' },
		{ "model", required_argument, NULL, 'm' },
		{ "space", required_argument, NULL, 'S' },
		{ "sandbox", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts mo = *o;
	json_t *params = json_object(), *r;
	char *real;
	int ch, rc = EXIT_OK;

	while ((ch = getopt_long(argc, argv, "+p:P:m:S:s:j", opts, NULL)) != -1) {
		const char *key = ch == 'P' ? "provider" : ch == 'm' ? "model" :
		    ch == 'S' ? "space" : ch == 's' ? "sandbox" : NULL;
		if (ch == 'p') {
			if ((real = realpath(optarg, NULL)) != NULL) {
				json_object_set_new(params, "project",
				    json_string(real));
				free(real);
			} else
				json_object_set_new(params, "project",
				    json_string(optarg));
		} else if (ch == 'j')
			mo.json = 1;
		else if (key != NULL)
			json_object_set_new(params, key, json_string(optarg));
		else {
			json_decref(params);
			return client_usage("wrong arguments");
		}
	}
	if (optind != argc) {
		json_decref(params);
		return client_usage("wrong arguments");
	}
	if ((r = client_call_once(&mo, "sandbox.resolve", params, &rc)) == NULL)
		return rc;
	client_print_warnings(r);
	if (mo.json)
		client_print_json(r);
	else {
		printf("%s\n", cmd_sandbox_s(r, "provenance", "?"));
		if (json_is_true(json_object_get(r, "sandboxed")))
			printf("network %s, run outside %s\n",
			    cmd_sandbox_s(r, "network", "?"),
			    cmd_sandbox_s(r, "run_outside", "?"));
		else
			printf("not sandboxed\n");
	}
	json_decref(r);
	return EXIT_OK;
}


/* The read reports line of sandbox status: how refused reads are seen. */
static void
cmd_sandbox_print_reads(json_t *rr)
{
	const char *by = cmd_sandbox_s(rr, "reads_by", NULL);
	char line[768];

	if (by == NULL)
		return;
	if (strcmp(by, "stand-ins") == 0)
		snprintf(line, sizeof line, "by the hidden areas' stand-ins (the "
		    "kernel decides each open; %lld requests served, %lld "
		    "refused reads seen)", (long long)json_integer_value(
		    json_object_get(rr, "requests")), (long long)
		    json_integer_value(json_object_get(rr, "reads_seen")));
	else if (strcmp(by, "seccomp") == 0)
		snprintf(line, sizeof line, "by a seccomp notification per "
		    "read-only open%s%s%s", cmd_sandbox_s(rr, "why", NULL) ?
		    " (stand-ins: " : "", cmd_sandbox_s(rr, "why", ""),
		    cmd_sandbox_s(rr, "why", NULL) ? ")" : "");
	else
		snprintf(line, sizeof line, "none: %s", cmd_sandbox_s(rr, "why",
		    "?"));
	cmd_sandbox_line("read reports", line);
}

/* Print what sandbox.status said, readable. */
static void
cmd_sandbox_print_status(const json_t *r)
{
	const json_t *sb = json_object_get(r, "sandbox"), *h;
	char line[1024], when[32];
	char *host, *reason;
	size_t i, n;

	cmd_sandbox_line("session", cmd_sandbox_s(r, "session", "?"));
	cmd_sandbox_line("profile", cmd_sandbox_s(r, "provenance",
	    cmd_sandbox_s(r, "profile", "?")));
	snprintf(line, sizeof line, "%s%s", cmd_sandbox_s(r, "state", "?"),
	    json_is_true(json_object_get(r, "live")) ? "" : " (not live)");
	cmd_sandbox_line("state", line);
	snprintf(line, sizeof line, "%s: %s", json_is_true(json_object_get(sb,
	    "runs_here")) ? "runs here" : "does not run here",
	    cmd_sandbox_s(sb, "detail", "?"));
	cmd_sandbox_line("sandbox", line);
	snprintf(line, sizeof line, "%s, %s, %s", cmd_sandbox_s(sb, "platform",
	    "?"), cmd_sandbox_s(json_object_get(sb, "bwrap"), "path", "bwrap"),
	    json_is_true(json_object_get(json_object_get(sb, "bwrap"), "found")) ?
	    (json_is_true(json_object_get(json_object_get(sb, "bwrap"),
	    "usable")) ? "found and usable" : "found") : "not found");
	cmd_sandbox_line("platform", line);
	cmd_sandbox_print_reads(json_object_get(sb, "read_reports"));
	if (json_integer_value(json_object_get(r, "proxy_port")) > 0)
		snprintf(line, sizeof line, "%s, proxy 127.0.0.1:%lld inside",
		    cmd_sandbox_s(r, "network", "?"), (long long)
		    json_integer_value(json_object_get(r, "proxy_port")));
	else
		snprintf(line, sizeof line, "%s", cmd_sandbox_s(r, "network", "?"));
	cmd_sandbox_line("network", line);
	if (json_object_get(r, "limits") != NULL)
		cmd_sandbox_line("cgroup", cmd_sandbox_s(json_object_get(r,
		    "limits"), "cgroup", "?"));
	cmd_sandbox_print_disk(json_object_get(r, "disk"));
	n = json_array_size(json_object_get(r, "refused"));
	if (n == 0) {
		cmd_sandbox_line("refused", "no host refused");
		return;
	}
	snprintf(line, sizeof line, "%zu host%s, newest first:", n,
	    n == 1 ? "" : "s");
	cmd_sandbox_line("refused", line);
	json_array_foreach(json_object_get(r, "refused"), i, h) {
		host = outside_text_escape(cmd_sandbox_s(h, "host", "?"));
		/* let through since (session allow-host): not refused now */
		reason = outside_text_escape(json_is_true(json_object_get(h,
		    "allowed")) ? "allowed since by session allow-host" :
		    cmd_sandbox_s(h, "reason", ""));
		outside_text_time(h, "last_at_ms", when, sizeof when);
		snprintf(line, sizeof line, "%s:%lld", host ? host : "?",
		    (long long)json_integer_value(json_object_get(h, "port")));
		printf("  %-40s %5lld× %s  %s\n", line, (long long)
		    json_integer_value(json_object_get(h, "count")), when,
		    reason ? reason : "");
		free(host);
		free(reason);
	}
}

/* The bound of each writable place (sandbox.status's disk): measured by
 * sboxd, or a tmpfs the kernel bounds. */
static void
cmd_sandbox_print_disk(const json_t *disk)
{
	static const char *const names[] = { "caches", "scratch", "tmp" };
	static const char *const keys[] = { "disk: caches", "disk: scratch",
	    "disk: /tmp" };
	char line[512];
	const json_t *b;
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if ((b = json_object_get(disk, names[i])) == NULL)
			continue;
		snprintf(line, sizeof line, "%s, %lld MiB (%s)",
		    cmd_sandbox_s(b, "bound", "?"), (long long)(
		    json_integer_value(json_object_get(b, "limit_bytes")) >> 20),
		    json_is_true(json_object_get(b, "kernel")) ? "the kernel "
		    "bounds it" : "measured, not enforced by the kernel");
		cmd_sandbox_line(keys[i], line);
	}
}

/* sbox sandbox status --session ID [--json]. */
static int
cmd_sandbox_status(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts mo = *o;
	const char *session = NULL;
	json_t *r;
	int ch, rc = EXIT_OK;

	while ((ch = getopt_long(argc, argv, "s:j", opts, NULL)) != -1) {
		if (ch == 's')
			session = optarg;
		else if (ch == 'j')
			mo.json = 1;
		else
			return client_usage("wrong arguments");
	}
	if (optind == argc - 1 && session == NULL)
		session = argv[optind++];
	if (session == NULL || optind != argc)
		return client_usage("wrong arguments");
	if ((r = client_call_once(&mo, "sandbox.status", json_pack("{s:s}",
	    "session", session), &rc)) == NULL)
		return rc;
	if (mo.json)
		client_print_json(r);
	else
		cmd_sandbox_print_status(r);
	json_decref(r);
	return EXIT_OK;
}

/* sbox sandbox check [--profile P] [--project DIR]: each step with ok or
 * FAILED; exit 1 if any failed. */
static int
cmd_sandbox_check(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "project", required_argument, NULL, 'P' },
		{ "provider", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts mo = *o;
	json_t *params = json_object(), *r, *st;
	char *real;
	size_t i, failed = 0;
	int ch, rc = EXIT_OK;

	while ((ch = getopt_long(argc, argv, "+p:P:v:j", opts, NULL)) != -1) {
		if (ch == 'p')
			json_object_set_new(params, "profile", json_string(optarg));
		else if (ch == 'v')	/* its hosts and home are checked too */
			json_object_set_new(params, "provider", json_string(optarg));
		else if (ch == 'P') {
			real = realpath(optarg, NULL);
			json_object_set_new(params, "project",
			    json_string(real ? real : optarg));
			free(real);
		} else if (ch == 'j')
			mo.json = 1;
		else {
			json_decref(params);
			return client_usage("wrong arguments");
		}
	}
	if (optind != argc) {
		json_decref(params);
		return client_usage("wrong arguments");
	}
	if (!mo.json)
		fprintf(stderr, "starting a test sandbox...\n");
	if ((r = client_call_once(&mo, "sandbox.check", params, &rc)) == NULL)
		return rc;
	json_array_foreach(json_object_get(r, "steps"), i, st) {
		if (!json_is_true(json_object_get(st, "ok")))
			failed++;
	}
	if (mo.json)
		client_print_json(r);
	else {
		printf("profile %s\n", cmd_sandbox_s(r, "profile", "?"));
		json_array_foreach(json_object_get(r, "steps"), i, st) {
			char *detail = outside_text_escape(cmd_sandbox_s(st,
			    "detail", ""));
			printf("  %-6s  %-28s %s\n", json_is_true(json_object_get(
			    st, "ok")) ? "ok" : "FAILED", cmd_sandbox_s(st, "step",
			    "?"), detail ? detail : "");
			free(detail);
		}
		if (failed == 0)
			printf("every step passed\n");
		else
			printf("%zu step%s FAILED\n", failed, failed == 1 ? "" :
			    "s");
	}
	json_decref(r);
	return failed ? EXIT_FAILED : EXIT_OK;
}

/* sbox sandbox SUBCOMMAND ... */
int
cmd_sandbox(const struct client_opts *o, int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(const struct client_opts *, int, char **);
	} subs[] = {
		{ "list", cmd_sandbox_list },
		{ "show", cmd_sandbox_show },
		{ "resolve", cmd_sandbox_resolve },
		{ "status", cmd_sandbox_status },
		{ "check", cmd_sandbox_check },
	};
	size_t i;

	if (argc < 2)
		return client_usage("sbox sandbox needs a subcommand: list, show, "
		    "resolve, status, check");
	for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
		if (strcmp(argv[1], subs[i].name) == 0) {
			optind = 0;
			return subs[i].fn(o, argc - 1, argv + 1);
		}
	}
	return client_usage("unknown sandbox command \"%s\"", argv[1]);
}
