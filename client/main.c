/* main.c: sbox, the command-line client of sboxd: global options and the
 * table of commands. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

static int main_help(const struct client_opts *o, int argc, char **argv);

static const struct client_cmd main_cmds[] = {
	{ "version", cmd_version, "sbox version",
	  "print the versions of sbox and of the running sboxd" },
	{ "daemon", cmd_daemon, "sbox daemon status|stop",
	  "show or stop the daemon" },
	{ "events", cmd_events, "sbox events [TOPIC...]",
	  "print events as they come, one JSON object per line" },
	{ "session", cmd_session,
	  "sbox session create --project DIR [--sandbox PROFILE|none] [--title T]\n"
	  "                    [--provider P] [--model M] [--space S]\n"
	  "       sbox session list [--all] | info ID | close ID\n"
	  "       sbox session exec ID [--cwd DIR] [--env NAME=VALUE]... [--detach]\n"
	  "                    [--timeout S] -- ARGV...\n"
	  "       sbox session send ID [--sandbox PROFILE] --stdin\n"
	  "       sbox session status ID [--json]\n"
	  "       sbox session choices [--project DIR] [--provider P] [--model M]\n"
	  "                    [--space S] [--sandbox PROFILE] [--json]\n"
	  "       sbox session outside ID --reason TEXT [--cwd DIR] -- ARGV...\n"
	  "       sbox session log ID [--json]\n"
	  "       sbox session allow-host ID HOST [--save]",
	  "create, list, inspect and close sessions; run commands in them" },
	{ "run", cmd_run, "sbox run [--sandbox PROFILE] [--project DIR] [--timeout S] -- ARGV...",
	  "run one command in a one-shot session" },
	{ "approvals", cmd_approvals, "sbox approvals [--watch]",
	  "list requests to run outside the sandbox, or prompt for each" },
	{ "approve", cmd_approve, "sbox approve ID",
	  "allow one request to run outside the sandbox, once" },
	{ "deny", cmd_deny, "sbox deny ID",
	  "refuse one request to run outside the sandbox" },
	{ "audit", cmd_audit,
	  "sbox audit [--session ID] [--since TIME] [--decision D] [--json]",
	  "every run-outside request: decision, decider, result" },
	{ "sandbox", cmd_sandbox,
	  "sbox sandbox list\n"
	  "       sbox sandbox show PROFILE [--json]\n"
	  "       sbox sandbox resolve [--project DIR] [--provider P] [--model M]\n"
	  "                            [--space S] [--sandbox PROFILE]\n"
	  "       sbox sandbox status --session ID [--json]\n"
	  "       sbox sandbox check [--profile P] [--project DIR] [--provider NAME]",
	  "what the profiles allow, which one a session gets, a session's "
	  "sandbox, a check" },
	{ "help", main_help, "sbox help [COMMAND]", "show help" },
	{ NULL, NULL, NULL, NULL },
};

/* Print the global usage. */
static void
main_usage(FILE *f)
{
	const struct client_cmd *c;

	fprintf(f, "usage: sbox [--socket PATH] [--json] [--no-start] COMMAND ...\n"
	    "\ncommands:\n");
	for (c = main_cmds; c->name != NULL; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nSBOX_SOCKET sets the socket like --socket. Exit codes: 0 ok, "
	    "1 the request failed,\n2 usage, 69 daemon unavailable, 77 denied.\n");
}

/* sbox help [COMMAND]. */
static int
main_help(const struct client_opts *o, int argc, char **argv)
{
	const struct client_cmd *c;

	(void)o;
	if (argc < 2) {
		main_usage(stdout);
		return EXIT_OK;
	}
	for (c = main_cmds; c->name != NULL; c++) {
		if (strcmp(c->name, argv[1]) == 0) {
			printf("usage: %s\n\n%s\n", c->usage, c->summary);
			return EXIT_OK;
		}
	}
	return client_usage("unknown command \"%s\"; see 'sbox help'", argv[1]);
}

/* Parse the global options, then run the command. */
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
	struct client_opts o = { NULL, 0, 0 };
	const struct client_cmd *c;
	int ch;

	/* "+": stop at the first non-option (the command). */
	while ((ch = getopt_long(argc, argv, "+s:jnhV", opts, NULL)) != -1) {
		switch (ch) {
		case 's': o.socket = optarg; break;
		case 'j': o.json = 1; break;
		case 'n': o.no_start = 1; break;
		case 'h': main_usage(stdout); return EXIT_OK;
		case 'V': printf("sbox %s\n", SBOX_VERSION); return EXIT_OK;
		default: main_usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	for (c = main_cmds; c->name != NULL; c++) {
		if (strcmp(c->name, argv[optind]) == 0) {
			int sub = optind;
			optind = 0; /* subcommands parse their own options */
			return c->fn(&o, argc - sub, argv + sub);
		}
	}
	return client_usage("unknown command \"%s\"; see 'sbox help'",
	    argv[optind]);
}
