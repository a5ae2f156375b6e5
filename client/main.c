/* main.c: sbox, the command-line client of sboxd: global options, the
 * commands' functions, and dispatch (usage and options are in table.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

static int main_help(const struct client_opts *o, int argc, char **argv);

static const struct client_cmd main_cmds[] = {
	{ "version", cmd_version },
	{ "daemon", cmd_daemon },
	{ "events", cmd_events },
	{ "session", cmd_session },
	{ "run", cmd_run },
	{ "command", cmd_command },
	{ "approvals", cmd_approvals },
	{ "approve", cmd_approve },
	{ "deny", cmd_deny },
	{ "audit", cmd_audit },
	{ "sandbox", cmd_sandbox },
	{ "config", cmd_config },
	{ "cache", cmd_cache },
	{ "shell", cmd_shell },
	{ "agent", cmd_agent },
	{ "completion", table_completion },
	{ "help", main_help },
	{ NULL, NULL },
};

/* Print the global usage. */
static void
main_usage(FILE *f)
{
	const struct client_sub *s, *t;
	const char *last = "";

	fprintf(f, "usage: sbox [--socket PATH] [--json] [--no-start] COMMAND ...\n"
	    "\ncommands:\n");
	for (s = table_all(); s->cmd != NULL; s++) {
		if (strcmp(s->cmd, last) == 0)
			continue;
		last = s->cmd;
		if (s->sub == NULL) {
			fprintf(f, "  %-11s %s\n", s->cmd, s->summary);
			continue;
		}
		/* a group: its subcommands */
		fprintf(f, "  %-11s", s->cmd);
		for (t = s; t->cmd != NULL && strcmp(t->cmd, s->cmd) == 0; t++)
			fprintf(f, "%s%s", t == s ? " " : " | ", t->sub);
		fputc('\n', f);
	}
	fprintf(f, "\n'sbox help COMMAND' or 'sbox COMMAND --help' shows a "
	    "command's usage.\nSBOX_SOCKET sets the socket like --socket; "
	    "SBOX_SANDBOX chooses the profile of\n'sbox run', 'sbox agent' and "
	    "'sbox session create' (below --sandbox). Exit codes:\n0 ok, 1 the "
	    "request failed, 2 usage, 69 daemon unavailable, 77 denied.\n");
}

/* The message for an unknown command, with a suggestion when one is close. */
static int
main_unknown(const char *cmd, const char *sub)
{
	const char *sugg = table_suggest(sub ? cmd : NULL, sub ? sub : cmd);

	client_usage_cmd(NULL, NULL);
	if (sub != NULL && sugg != NULL)
		return client_usage("unknown command 'sbox %s %s'; did you mean "
		    "'sbox %s %s'? (see 'sbox help %s')", cmd, sub, cmd, sugg, cmd);
	if (sub != NULL)
		return client_usage("unknown command 'sbox %s %s'; see 'sbox help "
		    "%s'", cmd, sub, cmd);
	if (sugg != NULL)
		return client_usage("unknown command \"%s\"; did you mean '%s'? "
		    "(see 'sbox help')", cmd, sugg);
	return client_usage("unknown command \"%s\"; see 'sbox help'", cmd);
}

/* sbox help [COMMAND [SUBCOMMAND]]. */
static int
main_help(const struct client_opts *o, int argc, char **argv)
{
	const struct client_sub *s;
	json_t *all, *e;

	if (o->json) {
		all = json_array();
		for (s = table_all(); s->cmd != NULL; s++) {
			if (argc > 1 && strcmp(s->cmd, argv[1]) != 0)
				continue;
			e = json_pack("{s:s, s:s?, s:s, s:s}", "command", s->cmd,
			    "subcommand", s->sub, "usage", s->usage, "summary",
			    s->summary);
			json_array_append_new(all, e);
		}
		e = json_pack("{s:o}", "commands", all);
		client_print_json(e);
		json_decref(e);
		return EXIT_OK;
	}
	if (argc < 2) {
		main_usage(stdout);
		return EXIT_OK;
	}
	if (argc > 3)
		return client_usage("usage: sbox help [COMMAND [SUBCOMMAND]]");
	if (!table_is_cmd(argv[1]))
		return main_unknown(argv[1], NULL);
	if (argc == 3 && table_find(argv[1], argv[2]) == NULL)
		return main_unknown(argv[1], argv[2]);
	table_help(argv[1], argc == 3 ? argv[2] : NULL);
	return EXIT_OK;
}

/* Does a command parse its own line (shell flags, an agent's arguments)?
 * Then table_prepare and --json anywhere on the line do not apply. */
static int
main_raw(const char *cmd)
{
	return strcmp(cmd, "shell") == 0 || strcmp(cmd, "agent") == 0;
}

/* Parse the global options, check the command line, run the command. */
int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-start", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts o = { 0 };
	const struct client_cmd *c;
	int ch, rc, sub, n;

	/* run by a shell's name (an agent's shell setting): sbox shell, its
	 * session from SBOX_SESSION, every argument a shell's */
	if (argc > 0 && cmd_shell_is_argv0(argv[0])) {
		argv[0] = "sbox-bash";
		return cmd_shell(&o, argc, argv);
	}
	opterr = 0; /* one "sbox: ..." line of our own instead */
	/* "+": stop at the first non-option (the command). */
	while ((ch = getopt_long(argc, argv, "+s:jnhV", opts, NULL)) != -1) {
		switch (ch) {
		case 's': o.socket = optarg; break;
		case 'j': o.json = 1; break;
		case 'n': o.no_start = 1; break;
		case 'h': main_usage(stdout); return EXIT_OK;
		case 'V': printf("sbox %s\n", SBOX_VERSION); return EXIT_OK;
		default:
			client_set_json(o.json);
			if (optopt == 's')
				return client_usage("option --socket needs a value; "
				    "see 'sbox help'");
			return client_usage("unknown option %s; see 'sbox help'",
			    argv[optind - 1]);
		}
	}
	/* --json anywhere before "--": errors before the command runs are one
	 * JSON document too */
	for (n = optind; n < argc && strcmp(argv[n], "--") != 0 &&
	    !main_raw(argv[optind]); n++)
		if (strcmp(argv[n], "--json") == 0)
			o.json = 1;
	client_set_json(o.json);
	if (optind >= argc) {
		if (o.json)
			return client_usage("no command given; see 'sbox help'");
		main_usage(stderr);
		return EXIT_USAGE;
	}
	for (c = main_cmds; c->name != NULL; c++)
		if (strcmp(c->name, argv[optind]) == 0)
			break;
	if (c->name == NULL)
		return main_unknown(argv[optind], NULL);
	sub = optind;
	n = argc - sub;
	client_usage_cmd(c->name, n > 1 && argv[sub + 1][0] != '-' &&
	    table_find(c->name, argv[sub + 1]) != NULL &&
	    table_find(c->name, NULL) == NULL ? argv[sub + 1] : NULL);
	if (main_raw(c->name)) {	/* its arguments are a shell's, an agent's */
		optind = 0;
		return c->fn(&o, n, argv + sub);
	}
	if ((rc = table_prepare(&o, &n, argv + sub)) != 0)
		return rc == 1 ? EXIT_OK : EXIT_USAGE;
	client_set_json(o.json);
	optind = 0; /* subcommands parse their own options */
	rc = c->fn(&o, n, argv + sub);
	if (o.json && !client_json_printed() && strcmp(c->name, "events") != 0) {
		json_t *r = json_pack("{s:b, s:i}", "ok", rc == 0, "exit_code", rc);
		client_print_json(r);
		json_decref(r);
	}
	return rc;
}
