/* table.c: the table of sbox's commands and subcommands (usage, summary,
 * options), and what is done with it before a command runs: --help, --json
 * anywhere on the line, unknown options, "did you mean", shell completion. */
#include "client/client.h"
#include "policy/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options are "name" (a flag) or "name=" (takes a value), optionally
 * "x/name" with a one-letter short form; --json and --help are implicit.
 * Every command, subcommand and option of the CLI must be listed here: the
 * check before a command runs refuses an option this table does not name
 * (and --help, completion and `sbox help` come from it). */
static const struct client_sub table_subs[] = {
	{ "version", NULL, "sbox version",
	  "print the versions of sbox and of the running sboxd", "", -1 },
	{ "daemon", "status", "sbox daemon status",
	  "the daemon's pid, uptime, connections, sessions and paths", "", -1 },
	{ "daemon", "stop", "sbox daemon stop",
	  "close every session and stop sboxd; returns once it has exited",
	  "", -1 },
	{ "daemon", "reload", "sbox daemon reload",
	  "load the config file again (as SIGHUP); a broken or missing one is "
	  "refused",
	  "", -1 },
	{ "events", NULL, "sbox events [--since SEQ] [-f|--follow] [TOPIC...]",
	  "print the stored events (after SEQ; the newest 1000) one JSON "
	  "object per line, and exit; --follow: then the live ones as they "
	  "come, until interrupted", "since= f/follow", -1 },
	{ "session", "create",
	  "sbox session create [--project DIR] [--sandbox PROFILE|none] [--title T]\n"
	  "                    [--provider P] [--model M] [--space S]\n"
	  "                    [--worktree BRANCH]  (a new linked worktree of DIR,\n"
	  "                    default the current folder, on BRANCH)\n"
	  "                    [--close-with-client]  (prints the id, then stays:\n"
	  "                    the session closes when this sbox ends, killed too)",
	  "start a session; prints its id (the project: --project, else the "
	  "top of the git work tree here, else the current folder; "
	  "SBOX_SANDBOX chooses the profile below --sandbox)",
	  "project= sandbox= title= provider= model= space= worktree= "
	  "close-with-client", -1 },
	{ "session", "list", "sbox session list [--all]",
	  "the live sessions (--all: closed ones too)", "all", -1 },
	{ "session", "info", "sbox session info ID",
	  "one session: profile, where it came from, state", "", -1 },
	{ "session", "close", "sbox session close ID [--remove-worktree]",
	  "end every process of a session and remove its sandbox (and the "
	  "linked worktree that was its project)", "remove-worktree", -1 },
	{ "session", "exec",
	  "sbox session exec ID [--cwd DIR] [--env NAME=VALUE]... [--detach]\n"
	  "                  [--timeout S] [--no-ask] [-t|--tty|--no-tty]\n"
	  "                  [--drop-osc|--keep-osc] -- ARGV...",
	  "run a command in a session (--detach: a background job; see "
	  "'sbox command'); on a terminal, a refused host or file write is "
	  "asked about (--no-ask: never); -t: on a terminal made inside the "
	  "sandbox (the default when stdin and stdout are terminals; "
	  "--no-tty: never; without one, the command gets pipes, never your "
	  "terminal); what it shows loses the sequences that act on your "
	  "machine rather than the screen (clipboard, titles, "
	  "notifications, window operations; colours stay): --keep-osc "
	  "passes them, --drop-osc drops them (the default: the config's "
	  "\"terminal\": {\"drop_osc\"}, true unless it says false)",
	  "C/cwd= e/env= d/detach T/timeout= no-ask t/tty no-tty drop-osc "
	  "keep-osc", 1 },
	{ "session", "shell",
	  "sbox session shell ID [--cwd DIR] [--env NAME=VALUE]...\n"
	  "                   [--drop-osc|--keep-osc]",
	  "an interactive shell in a session, on a terminal made inside the "
	  "sandbox (bash when it has one, else sh); --keep-osc: with the "
	  "clipboard, title and other sequences that act on your machine "
	  "(dropped by default)", "C/cwd= e/env= drop-osc keep-osc",
	  -1 },
	{ "session", "send",
	  "sbox session send ID [--sandbox PROFILE] [--stdin] [--no-ask]",
	  "run the shell script read from stdin in a session (--stdin: "
	  "needed only when stdin is a terminal; --sandbox: "
	  "under a narrower profile, in a child session; --no-ask: never ask "
	  "about a refusal)", "stdin sandbox= no-ask", -1 },
	{ "session", "status", "sbox session status ID",
	  "state, sandbox, whether it runs here, refused hosts, running "
	  "commands", "", -1 },
	{ "session", "choices",
	  "sbox session choices [--project DIR] [--provider P] [--model M]\n"
	  "                     [--space S] [--sandbox PROFILE]",
	  "what each level would choose for a session, and which wins",
	  "project= provider= model= space= sandbox=", -1 },
	{ "session", "outside",
	  "sbox session outside ID --reason TEXT [--cwd DIR] [--env NAME=VALUE]...\n"
	  "                     -- ARGV...",
	  "ask a person to run one command outside the sandbox (77 when "
	  "denied)", "r/reason= C/cwd= e/env=", 1 },
	{ "session", "log", "sbox session log ID",
	  "the session's timeline, runs outside the sandbox marked", "", -1 },
	{ "session", "allow-host", "sbox session allow-host ID HOST [--save]",
	  "let a refused host through a live session's proxy (--save: into "
	  "its custom profile)", "save", -1 },
	{ "run", NULL,
	  "sbox run [--sandbox PROFILE] [--project DIR] [--timeout S] [-v] "
	  "[--no-ask]\n"
	  "         [--drop-osc|--keep-osc] -- ARGV...\n"
	  "       (the profile: --sandbox, else SBOX_SANDBOX, else what the "
	  "config chooses,\n"
	  "       else workspace; -v prints the session id)",
	  "run one command in a one-shot sandbox (by default "
	  "workspace); --keep-osc: with the clipboard, title and other "
	  "sequences that act on your machine (dropped by default)",
	  "s/sandbox= p/project= T/timeout= v/verbose no-ask drop-osc "
	  "keep-osc", 0 },
	{ "shell", NULL,
	  "sbox shell [SESSION] [-l|-i|--login|-e|-x|-o OPT]... [-c CMD [NAME "
	  "[ARG...]] | FILE [ARG...]]\n"
	  "       (SESSION: else SBOX_SESSION; run as a link named sbox-bash, "
	  "sbox-shell\n"
	  "       or bash, it takes no SESSION: an agent's shell setting is one "
	  "path)",
	  "a shell for an agent: each command runs in the session (its bash, "
	  "else sh), in this folder when it is inside the project (else the "
	  "project's top), stdio passed through, its exit status; refusals as "
	  "'sbox: blocked:' lines on stderr; no -c at a terminal: an "
	  "interactive shell there", "", 0 },
	{ "agent", NULL,
	  "sbox agent [--sandbox PROFILE] [--project DIR] [--bin PATH] "
	  "claude|codex|gemini\n"
	  "           [ARGS...]  (ARGS go to the agent's CLI as they are)",
	  "run an agent's CLI on this computer with every shell command it "
	  "runs in a session made for this project (provider: that agent), "
	  "closed when the CLI exits or sbox goes away; --bin, else "
	  "SBOX_AGENT_BIN, else the CLI on PATH",
	  "sandbox= project= bin=", 0 },
	{ "command", "list", "sbox command list SESSION",
	  "a session's commands and background jobs, with their ids", "", -1 },
	{ "command", "read", "sbox command read COMMAND",
	  "a command's state and the output kept so far", "", -1 },
	{ "command", "wait", "sbox command wait COMMAND",
	  "wait for a command to end; its output, and its exit status", "", -1 },
	{ "command", "kill", "sbox command kill COMMAND [--signal SIG]",
	  "send a signal (a name such as KILL or SIGINT, or a number; "
	  "default TERM) to a command's process group",
	  "signal=", -1 },
	{ "command", "follow", "sbox command follow COMMAND",
	  "a command's output so far, then as it comes, until it ends; its "
	  "exit status", "", -1 },
	{ "approvals", NULL, "sbox approvals [--watch]",
	  "list requests to run outside the sandbox, or prompt for each",
	  "watch", -1 },
	{ "approve", NULL, "sbox approve ID",
	  "allow one request to run outside the sandbox, once", "", -1 },
	{ "deny", NULL, "sbox deny ID",
	  "refuse one request to run outside the sandbox", "", -1 },
	{ "audit", NULL,
	  "sbox audit [--session ID] [--since TIME] [--decision D]\n"
	  "       (TIME: 30m, 2h, 7d ago, unix ms, or ISO-8601 UTC)",
	  "every run-outside request: decision, decider, result",
	  "session= since= decision=", -1 },
	{ "cache", "list", "sbox cache list [--profile P] [--project DIR]",
	  "sbox's own package caches of each profile and project, their sizes",
	  "profile= project=", -1 },
	{ "cache", "clear", "sbox cache clear [--profile P] [--project DIR]",
	  "empty sbox's own package caches (of one profile, of one project)",
	  "profile= project=", -1 },
	{ "sandbox", "list", "sbox sandbox list",
	  "the profiles, their network and folders, where each is chosen",
	  "", -1 },
	{ "sandbox", "show", "sbox sandbox show PROFILE | --provider P [PROFILE]",
	  "what a profile allows: hosts, folders, ports, variables; with a "
	  "provider, what its agent gets (account folders, hosts, keys)",
	  "provider=", -1 },
	{ "sandbox", "resolve",
	  "sbox sandbox resolve [--project DIR] [--provider P] [--model M]\n"
	  "                     [--space S] [--sandbox PROFILE]",
	  "which profile a session would get, and where it comes from",
	  "project= provider= model= space= sandbox=", -1 },
	{ "sandbox", "status", "sbox sandbox status --session ID",
	  "a session's sandbox, whether it runs here, the hosts it refused",
	  "session=", -1 },
	{ "sandbox", "check",
	  "sbox sandbox check [--profile P] [--project DIR] [--provider NAME]",
	  "start a test sandbox and show each step (exit 1 if one fails)",
	  "profile= project= provider=", -1 },
	{ "config", "check", "sbox config check [FILE]",
	  "check a config file (default: the daemon's) and list every error",
	  "", -1 },
	{ "config", "reset", "sbox config reset",
	  "load the config file as at start: a deleted file becomes the empty "
	  "config (a reload keeps the old one)", "", -1 },
	{ "completion", NULL, "sbox completion bash",
	  "print a bash completion script (source it from ~/.bashrc); it "
	  "completes session ids and profile names too, from 'sbox completion "
	  "words sessions|profiles'", "", -1 },
	{ "help", NULL, "sbox help [COMMAND [SUBCOMMAND]]", "show help", "", -1 },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};

/* The whole table (ends with a NULL cmd). */
const struct client_sub *
table_all(void)
{
	return table_subs;
}

/* Does cmd have subcommands? */
static int
table_has_subs(const char *cmd)
{
	const struct client_sub *s;

	for (s = table_subs; s->cmd != NULL; s++)
		if (strcmp(s->cmd, cmd) == 0 && s->sub != NULL)
			return 1;
	return 0;
}

/* Is cmd a command of the table? */
int
table_is_cmd(const char *cmd)
{
	const struct client_sub *s;

	for (s = table_subs; s->cmd != NULL; s++)
		if (strcmp(s->cmd, cmd) == 0)
			return 1;
	return 0;
}

/* The entry for cmd and sub (sub NULL for a command without subcommands). */
const struct client_sub *
table_find(const char *cmd, const char *sub)
{
	const struct client_sub *s;

	for (s = table_subs; s->cmd != NULL; s++) {
		if (strcmp(s->cmd, cmd) != 0)
			continue;
		if (s->sub == NULL || (sub != NULL && strcmp(s->sub, sub) == 0))
			return s;
	}
	return NULL;
}

/* The closest name to word among the commands (cmd NULL) or the
 * subcommands of cmd, or NULL when none is close. */
const char *
table_suggest(const char *cmd, const char *word)
{
	const char *names[128];
	const struct client_sub *s;
	size_t n = 0;

	for (s = table_subs; s->cmd != NULL && n + 1 < 128; s++) {
		if (cmd != NULL && (strcmp(s->cmd, cmd) != 0 || s->sub == NULL))
			continue;
		names[n++] = cmd != NULL ? s->sub : s->cmd;
	}
	names[n] = NULL;
	return suggest_closest(word, names);
}

/* Find an option of the spec: long name (with len) or short letter. */
static const char *
table_opt(const char *spec, const char *name, size_t len, int letter,
    int *takes_value)
{
	const char *p = spec, *t, *n;
	size_t tl;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		t = p;
		while (*p != '\0' && *p != ' ')
			p++;
		tl = (size_t)(p - t);
		if (tl == 0)
			break;
		n = (tl > 2 && t[1] == '/') ? t + 2 : t;
		*takes_value = t[tl - 1] == '=';
		if (letter != 0 && n != t && t[0] == letter)
			return n;
		if (letter == 0 && (size_t)(t + tl - n) - (size_t)*takes_value ==
		    len && strncmp(n, name, len) == 0)
			return n;
	}
	return NULL;
}

/* The closest of names (NULL-terminated) to word, or NULL when none is
 * close (for "did you mean": options, profile names). */
const char *
table_closest(const char *word, const char *const *names)
{
	return suggest_closest(word, names);
}

/* The long option of spec closest to name (len bytes), copied to out, or
 * NULL. */
static const char *
table_opt_suggest(const char *spec, const char *name, size_t len,
    char out[64])
{
	char words[32][64], word[64];
	const char *names[33], *p = spec, *t, *best;
	size_t tl, n = 0;

	while (*p != '\0' && n < 32) {
		while (*p == ' ')
			p++;
		t = p;
		while (*p != '\0' && *p != ' ')
			p++;
		if ((tl = (size_t)(p - t)) == 0)
			break;
		if (tl > 2 && t[1] == '/') {
			t += 2;
			tl -= 2;
		}
		if (tl > 0 && t[tl - 1] == '=')
			tl--;
		if (tl >= sizeof words[0])
			continue;
		memcpy(words[n], t, tl);
		words[n][tl] = '\0';
		names[n] = words[n];
		n++;
	}
	names[n] = NULL;
	if (len >= sizeof word)
		return NULL;
	memcpy(word, name, len);
	word[len] = '\0';
	if ((best = table_closest(word, names)) == NULL)
		return NULL;
	snprintf(out, 64, "%s", best);
	return out;
}

/* Does the usage of s put its positionals (an ID) before its options
 * ("sbox session exec ID [--cwd DIR]")? Its parser then reads them first. */
static int
table_id_first(const struct client_sub *s)
{
	const char *p = s->usage;
	int words = s->sub != NULL ? 3 : 2;

	while (words-- > 0) {
		p += strcspn(p, " \n");
		p += strspn(p, " \n");
	}
	return *p >= 'A' && *p <= 'Z';
}

/* Print the help of one entry (or of every subcommand of cmd) on stdout. */
void
table_help(const char *cmd, const char *sub)
{
	const struct client_sub *s;
	int first = 1;

	for (s = table_subs; s->cmd != NULL; s++) {
		if (strcmp(s->cmd, cmd) != 0 || (sub != NULL && s->sub != NULL &&
		    strcmp(s->sub, sub) != 0))
			continue;
		printf("%susage: %s\n  %s\n", first ? "" : "\n", s->usage,
		    s->summary);
		first = 0;
	}
	if (!first)
		printf("\n--json (anywhere before --): one JSON document on stdout; "
		    "--help: this help.\n");
}

/* Check a command line before the command runs: --help prints help (1),
 * --json anywhere before "--" is taken out (o->json), an unknown option or
 * one without its value is a usage error (-1, printed, with the closest
 * option); 0 otherwise. Options may stand anywhere before "--" (or the
 * command line): they are put where the command's parser reads them,
 * before its positionals, or after an ID the usage names first. */
int
table_prepare(struct client_opts *o, int *argcp, char **argv)
{
	const struct client_sub *s;
	const char *sub = NULL, *a, *eq, *sugg;
	int argc = *argcp, i, out, pos = 0, stop = 0, val, first = 1;
	int nopt = 0, npos = 0, k;
	char **opt = calloc((size_t)argc + 1, sizeof *opt);
	char **posv = calloc((size_t)argc + 1, sizeof *posv), hint[64];

	if (opt == NULL || posv == NULL) {
		free(opt);
		free(posv);
		return client_usage("out of memory"), -1;
	}
	if (table_has_subs(argv[0]) && argc > 1 && argv[1][0] != '-') {
		sub = argv[1];
		first = 2;
	}
	s = table_find(argv[0], sub);
	for (i = out = first; i < argc; i++) {
		a = argv[i];
		if (stop) {
			argv[out++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			stop = 1;
		} else if (strcmp(a, "--json") == 0) {
			o->json = 1;
			continue;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			table_help(argv[0], s != NULL ? s->sub : NULL);
			free(opt);
			free(posv);
			return 1;
		} else if (s != NULL && a[0] == '-' && a[1] != '\0' &&
		    strcmp(argv[0], "help") != 0) {
			const char *name = a[1] == '-' ? a + 2 : a + 1;
			size_t len = (eq = strchr(name, '=')) ? (size_t)(eq - name) :
			    strlen(name);
			if (table_opt(s->opts, name, len, a[1] == '-' ? 0 : a[1],
			    &val) == NULL || (a[1] != '-' && len != 1)) {
				client_usage_cmd(argv[0], s->sub);
				free(opt);
				free(posv);
				if (a[1] == '-' && table_opt_suggest(s->opts, name, len,
				    hint) != NULL)
					return client_usage("unknown option %s for 'sbox "
					    "%s%s%s' (did you mean --%s?)", a, argv[0],
					    s->sub ? " " : "", s->sub ? s->sub : "",
					    hint), -1;
				return client_usage("unknown option %s for 'sbox %s%s%s'",
				    a, argv[0], s->sub ? " " : "", s->sub ? s->sub : ""),
				    -1;
			}
			opt[nopt++] = argv[i];
			if (val && eq == NULL) {
				if (i + 1 >= argc) {
					client_usage_cmd(argv[0], s->sub);
					free(opt);
					free(posv);
					return client_usage("option %s needs a value", a), -1;
				}
				opt[nopt++] = argv[++i];
			}
			continue;
		} else if (s != NULL && s->argv_at >= 0 && a[0] != '-' &&
		    ++pos > s->argv_at) {
			stop = 1;
		}
		if (stop || s == NULL) {
			/* the options and positionals so far, in the order the
			 * command's parser reads them, then the rest as it is */
			for (k = 0; s != NULL && table_id_first(s) && k < npos; k++)
				argv[out++] = posv[k];
			for (k = 0; k < nopt; k++)
				argv[out++] = opt[k];
			for (k = 0; (s == NULL || !table_id_first(s)) && k < npos; k++)
				argv[out++] = posv[k];
			npos = nopt = 0;
			argv[out++] = argv[i];
			continue;
		}
		posv[npos++] = argv[i];
	}
	for (k = 0; s != NULL && table_id_first(s) && k < npos; k++)
		argv[out++] = posv[k];
	for (k = 0; k < nopt; k++)
		argv[out++] = opt[k];
	for (k = 0; (s == NULL || !table_id_first(s)) && k < npos; k++)
		argv[out++] = posv[k];
	free(opt);
	free(posv);
	argv[out] = NULL;
	*argcp = out;
	if (s == NULL && sub != NULL) {
		client_usage_cmd(argv[0], NULL);
		if ((sugg = table_suggest(argv[0], sub)) != NULL)
			return client_usage("unknown command 'sbox %s %s'; did you "
			    "mean 'sbox %s %s'? (see 'sbox help %s')", argv[0], sub,
			    argv[0], sugg, argv[0]), -1;
		return client_usage("unknown command 'sbox %s %s'; see 'sbox help "
		    "%s'", argv[0], sub, argv[0]), -1;
	}
	return 0;
}

/* sbox completion words sessions|profiles: the live session ids or the
 * profile names, one a line (for the completion script; never starts
 * sboxd). */
static int
table_words(const struct client_opts *o, const char *what)
{
	struct client_opts q = *o;
	const char *method, *list, *key;
	json_t *r, *e;
	size_t i;
	int rc = EXIT_OK;

	if (strcmp(what, "sessions") == 0) {
		method = "session.list";
		list = "sessions";
		key = "session";
	} else if (strcmp(what, "profiles") == 0) {
		method = "sandbox.list";
		list = "profiles";
		key = "name";
	} else
		return client_usage("sbox completion words takes sessions or "
		    "profiles");
	q.no_start = 1;
	q.json = 0;
	if ((r = client_call_once(&q, method, NULL, &rc)) == NULL)
		return rc;
	json_array_foreach(json_object_get(r, list), i, e)
		if (json_is_string(json_object_get(e, key)))
			printf("%s\n", json_string_value(json_object_get(e, key)));
	json_decref(r);
	return EXIT_OK;
}

/* sbox completion bash: a completion script made from the table. */
int
table_completion(const struct client_opts *o, int argc, char **argv)
{
	const struct client_sub *s, *t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = stdout;

	if (argc == 3 && strcmp(argv[1], "words") == 0)
		return table_words(o, argv[2]);
	if (argc != 2 || strcmp(argv[1], "bash") != 0)
		return client_usage("only 'sbox completion bash' is supported");
	if (o->json && (f = open_memstream(&buf, &len)) == NULL)
		return EXIT_FAILED;
	fprintf(f, "# bash completion for sbox; generated by 'sbox completion bash'\n"
	    "_sbox() {\n"
	    "  local cur=${COMP_WORDS[COMP_CWORD]} i cmd= sub= words=\n"
	    "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
	    "    case ${COMP_WORDS[i]} in\n"
	    "      --socket) ((i++)) ;;\n"
	    "      -*) ;;\n"
	    "      *) if [ -z \"$cmd\" ]; then cmd=${COMP_WORDS[i]}; "
	    "elif [ -z \"$sub\" ]; then sub=${COMP_WORDS[i]}; fi ;;\n"
	    "    esac\n"
	    "  done\n"
	    "  case \"$cmd/$sub\" in\n"
	    "    /) words='");
	for (s = table_subs; s->cmd != NULL; s++)
		if (s == table_subs || strcmp(s[-1].cmd, s->cmd) != 0)
			fprintf(f, "%s ", s->cmd);
	fprintf(f, "--socket --json --no-start --help --version' ;;\n");
	for (s = table_subs; s->cmd != NULL; s++) {
		if (s->sub == NULL || (s != table_subs && strcmp(s[-1].cmd,
		    s->cmd) == 0))
			continue;
		fprintf(f, "    %s/) words='", s->cmd);
		for (t = s; t->cmd != NULL && strcmp(t->cmd, s->cmd) == 0; t++)
			fprintf(f, "%s ", t->sub);
		fprintf(f, "--help' ;;\n");
	}
	for (s = table_subs; s->cmd != NULL; s++) {
		const char *p = s->opts;
		fprintf(f, "    %s/%s) words='", s->cmd, s->sub ? s->sub : "*");
		while (*p != '\0') {
			while (*p == ' ')
				p++;
			if (p[0] != '\0' && p[1] == '/')
				p += 2;
			fprintf(f, "--");
			while (*p != '\0' && *p != ' ' && *p != '=')
				fputc(*p++, f);
			while (*p != '\0' && *p != ' ')
				p++;
			fputc(' ', f);
		}
		fprintf(f, "--json --help' ;;\n");
	}
	fprintf(f, "  esac\n"
	    /* what the daemon knows: profile names after --sandbox and
	     * --profile, session ids where a command takes one */
	    "  local prev=${COMP_WORDS[COMP_CWORD-1]} sbox=${COMP_WORDS[0]}\n"
	    "  case $prev in\n"
	    "    --sandbox|--profile) words=$($sbox --no-start completion words "
	    "profiles 2>/dev/null) ;;\n"
	    "    --session) words=$($sbox --no-start completion words sessions "
	    "2>/dev/null) ;;\n"
	    "    *) case $cur in -*) ;; *) case \"$cmd/$sub\" in\n"
	    "      session/info|session/close|session/exec|session/shell|"
	    "session/send|session/status|session/log|session/outside|"
	    "session/allow-host|command/list)\n"
	    "        words=\"$words $($sbox --no-start completion words sessions "
	    "2>/dev/null)\" ;;\n"
	    "      sandbox/show) words=\"$words $($sbox --no-start completion "
	    "words profiles 2>/dev/null)\" ;;\n"
	    "    esac ;; esac ;;\n"
	    "  esac\n"
	    "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	    "}\n"
	    "complete -o default -F _sbox sbox\n");
	if (o->json) {
		json_t *j;
		fclose(f);
		j = json_pack("{s:s, s:s%}", "shell", "bash", "script", buf, len);
		client_print_json(j);
		json_decref(j);
		free(buf);
	}
	return EXIT_OK;
}
