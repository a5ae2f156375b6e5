/* cmd-shell.c: sbox shell [SESSION] [SHELL-FLAGS] [-c CMD [NAME [ARG...]]]:
 * a program an agent takes as its shell. Every command it is given runs in
 * the session (bash there when the sandbox has it, else sh), in the
 * caller's folder when that is inside the session's project (else the
 * project's top), with stdin, stdout and stderr passed through (exec.c's
 * path), and its exit status is the command's. What the sandbox refused
 * goes to stderr as `sbox: blocked: ...` lines, so the agent's tool result
 * says why. The session is SESSION, else $SBOX_SESSION; invoked by a name
 * of its own (a link named sbox-bash, sbox-shell or bash to sbox) it takes
 * no SESSION argument at all, so an agent's shell setting can be one path. */
#include "client/client.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs the command with the session's bash (else sh): "$@" is the shell's
 * own arguments (flags, then -c CMD NAME ARGS, or a script, or -s). */
#define CMD_SHELL_PICK \
	"if command -v bash >/dev/null 2>&1; then exec bash \"$@\"; fi; " \
	"exec sh \"$@\""

/* What a shell command line asks for. */
struct cmd_shell_line {
	const char *session;
	json_t     *args;     /* for the inner shell: flags, -c CMD ... */
	int         command;  /* -c given */
	int         script;   /* a script file or -s: not interactive */
};

/* Is this program run by a name of its own as a shell (sbox-bash,
 * sbox-shell, sbox-sh, bash, sh, zsh, dash: a link to sbox, or sbox bound
 * over an account's shell by sbox agent)? */
int
cmd_shell_is_argv0(const char *argv0)
{
	const char *b = strrchr(argv0, '/');

	b = b != NULL ? b + 1 : argv0;
	if (*b == '-')	/* a login shell's "-bash" */
		b++;
	return strcmp(b, "bash") == 0 || strcmp(b, "sbox-bash") == 0 ||
	    strcmp(b, "sbox-shell") == 0 || strcmp(b, "sbox-sh") == 0 ||
	    strcmp(b, "sh") == 0 || strcmp(b, "zsh") == 0 ||
	    strcmp(b, "dash") == 0;
}

/* Parse the shell flags from argv[i]: -c, -l, -i, -s, --login and the like
 * (login and interactive are taken and not passed: the command runs with
 * the session's environment), -e/-x/-u/-o NAME and others passed to the
 * inner shell; 0, or -1 on a usage error. */
static int
cmd_shell_parse(int argc, char **argv, int i, struct cmd_shell_line *l)
{
	int want_cmd = 0;
	const char *p;

	for (; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--login") == 0 || strcmp(a, "--noprofile") == 0 ||
		    strcmp(a, "--norc") == 0 || strcmp(a, "--posix") == 0 ||
		    strcmp(a, "--noediting") == 0)
			continue;
		if (strncmp(a, "--rcfile", 8) == 0 || strncmp(a, "--init-file",
		    11) == 0) {
			if (strchr(a, '=') == NULL)
				i++;
			continue;
		}
		if (a[0] == '-' && a[1] == '-')
			return client_usage("sbox shell: unknown option %s", a), -1;
		if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
			break;
		if (strcmp(a + 1, "o") == 0) {	/* -o NAME / +o NAME */
			if (i + 1 >= argc)
				return client_usage("sbox shell: %s needs a name", a),
				    -1;
			json_array_append_new(l->args, json_string(a));
			json_array_append_new(l->args, json_string(argv[++i]));
			continue;
		}
		char flags[64];
		size_t n = 0;
		flags[n++] = a[0];
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 'c')
				want_cmd = 1;
			else if (*p == 's')
				l->script = 1;
			else if (*p == 'l' || *p == 'i')
				continue;
			else if (strchr("aefhknuvxBCEHPT", *p) != NULL &&
			    n + 1 < sizeof flags)
				flags[n++] = *p;
			else
				return client_usage("sbox shell: unknown option "
				    "-%c", *p), -1;
		}
		flags[n] = '\0';
		if (n > 1)
			json_array_append_new(l->args, json_string(flags));
	}
	if (want_cmd) {
		if (i >= argc)
			return client_usage("sbox shell: -c needs a command"), -1;
		l->command = 1;
		json_array_append_new(l->args, json_string("-c"));
	} else if (i < argc)
		l->script = 1;	/* bash FILE ARGS */
	else if (l->script)
		json_array_append_new(l->args, json_string("-s"));
	for (; i < argc; i++)
		json_array_append_new(l->args, json_string(argv[i]));
	return 0;
}

/* The folder the command runs in: ours when it is the project or below
 * it, else the project's top (project NULL: none is sent). */
static char *
cmd_shell_cwd(const char *project)
{
	char here[PATH_MAX];
	size_t n;

	if (project == NULL)
		return NULL;
	n = strlen(project);
	if (realpath(".", here) != NULL && strncmp(here, project, n) == 0 &&
	    (here[n] == '\0' || here[n] == '/' || strcmp(project, "/") == 0))
		return strdup(here);
	return strdup(project);
}

/* Run the parsed line in its session; sbox's exit status. */
static int
cmd_shell_run(const struct client_opts *o, struct cmd_shell_line *l)
{
	struct client_opts so = *o;
	json_t *info, *params, *argv;
	struct client *cl;
	sbox_error err;
	char *cwd;
	size_t i;
	int rc;

	so.no_ask = 1;	/* an agent cannot answer: the refusal is its result */
	so.json = 0;
	/* a terminal of the sandbox only for an interactive shell */
	so.tty = (l->command || l->script) ? 0 : 2;
	if (so.tty == 2 && !exec_tty_possible())
		so.tty = 0;	/* commands read from a pipe: bash -s */
	if (so.tty == 0 && !l->command && !l->script)
		json_array_append_new(l->args, json_string("-s"));
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL)
		return client_fail(&err);
	info = client_call(cl, "session.info", json_pack("{s:s, s:b}",
	    "session", l->session, "brief", 1), NULL, 0, &err);
	if (info == NULL) {
		client_close(cl);
		return client_fail(&err);
	}
	argv = json_pack("[s, s, s, s]", "sh", "-c", CMD_SHELL_PICK,
	    "sbox-shell");
	for (i = 0; i < json_array_size(l->args); i++)
		json_array_append(argv, json_array_get(l->args, i));
	params = json_pack("{s:s, s:o}", "session", l->session, "argv", argv);
	if ((cwd = cmd_shell_cwd(json_string_value(json_object_get(info,
	    "project")))) != NULL)
		json_object_set_new(params, "cwd", json_string(cwd));
	free(cwd);
	rc = exec_run_params(&so, cl, params, 0, info);
	json_decref(info);
	client_close(cl);
	return rc;
}

/* The session from the environment (SBOX_SESSION), or NULL. */
static const char *
cmd_shell_env_session(void)
{
	const char *s = getenv("SBOX_SESSION");

	return s != NULL && s[0] != '\0' ? s : NULL;
}

/* sbox shell [SESSION] [flags] [-c CMD [NAME [ARG...]]] (argv[0] "shell"),
 * or, run by a shell's name (cmd_shell_is_argv0), the flags alone. */
int
cmd_shell(const struct client_opts *o, int argc, char **argv)
{
	struct cmd_shell_line l = { 0 };
	int i = 1, rc;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) && strcmp(argv[0], "shell") == 0) {
		table_help("shell", NULL);
		return EXIT_OK;
	}
	/* "sbox shell SESSION ...": a first word that is not a flag */
	if (strcmp(argv[0], "shell") == 0 && argc > 1 && argv[1][0] != '-' &&
	    argv[1][0] != '+')
		l.session = argv[i++];
	else
		l.session = cmd_shell_env_session();
	if (l.session == NULL)
		return client_usage("sbox shell needs a session: sbox shell "
		    "SESSION [-c CMD], or SBOX_SESSION in the environment");
	l.args = json_array();
	if (cmd_shell_parse(argc, argv, i, &l) == -1) {
		json_decref(l.args);
		return EXIT_USAGE;
	}
	rc = cmd_shell_run(o, &l);
	json_decref(l.args);
	return rc;
}
