/* cmd-agent.c: sbox agent claude|codex|gemini [ARGS...]: the agent's real
 * CLI runs on this computer, and every shell command it runs goes into a
 * session made for this project (provider: that agent, so its profile
 * applies) through `sbox shell` (cmd-shell.c), which each CLI is pointed at
 * in the way it chooses its shell: Claude Code by CLAUDE_CODE_SHELL (a path
 * that names bash: the link sbox-bash), Gemini CLI by the `bash` it finds
 * on PATH (a folder whose only entry is a link `bash` to sbox, put first),
 * and Codex, which runs the login shell of the account database by its
 * absolute path (bash when there is none) and has no setting for it, in a
 * mount namespace of its own where that file and /bin/bash are sbox (a user namespace too when not root, its
 * uid mapped to itself). The session is made with close_with_client: it closes when
 * this sbox ends, by the CLI's exit, a signal or a kill. */
#include "client/client.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One agent sbox knows how to point at its shell. */
struct cmd_agent_kind {
	const char *name;      /* as typed, and its provider */
	const char *program;   /* its CLI's name on PATH */
	int         path_bash; /* finds "bash" on PATH (else CLAUDE_CODE_SHELL) */
	int         bind_bash; /* runs /bin/bash by path: bind sbox there */
	const char *const *pre;/* arguments put before the person's */
};

/* Codex's own sandbox off: its tool commands are sandboxed by sbox. */
static const char *const cmd_agent_codex_pre[] = { "-c",
	"sandbox_mode=\"danger-full-access\"", NULL };

static const struct cmd_agent_kind cmd_agent_kinds[] = {
	{ "claude", "claude", 0, 0, NULL },
	{ "codex", "codex", 1, 1, cmd_agent_codex_pre },
	{ "gemini", "gemini", 1, 0, NULL },
	{ NULL, NULL, 0, 0, NULL },
};

static volatile sig_atomic_t cmd_agent_child;

/* SIGTERM or SIGHUP to sbox: passed to the CLI, which ends; sbox then
 * closes the session. */
static void
cmd_agent_forward(int sig)
{
	if (cmd_agent_child > 0)
		kill((pid_t)cmd_agent_child, sig);
}

/* The kind of agent called name (its aliases too), or NULL. */
static const struct cmd_agent_kind *
cmd_agent_find(const char *name)
{
	const struct cmd_agent_kind *k;

	if (strcmp(name, "claude-code") == 0)
		name = "claude";
	else if (strcmp(name, "gemini-cli") == 0)
		name = "gemini";
	for (k = cmd_agent_kinds; k->name != NULL; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

/* The absolute path of program on PATH (caller frees), or NULL. */
static char *
cmd_agent_which(const char *program)
{
	const char *path = getenv("PATH"), *p, *e;
	char buf[PATH_MAX];

	if (strchr(program, '/') != NULL)
		return realpath(program, NULL);
	for (p = path ? path : "/usr/bin:/bin"; *p != '\0'; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		if (e > p && snprintf(buf, sizeof buf, "%.*s/%s", (int)(e - p),
		    p, program) < (int)sizeof buf && access(buf, X_OK) == 0)
			return realpath(buf, NULL);
	}
	return NULL;
}

/* Where the shell links are: *bash the link sbox-bash, *dir the folder
 * holding only a link `bash` (both to sbox, beside this binary or in
 * PREFIX/libexec/sbox/shell); -1 with err when they are missing. */
static int
cmd_agent_shims(char **bash, char **dir, sbox_error *err)
{
	char self[PATH_MAX], b[PATH_MAX + 32], d[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash;

	if (n <= 0)
		return error_set(err, E_INTERNAL, "cannot find sbox's own "
		    "program (/proc/self/exe): %s", strerror(errno));
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(b, sizeof b, "%s/sbox-bash", self);
	snprintf(d, sizeof d, "%s/shell", self);
	if (access(d, X_OK) != 0 || access(b, X_OK) != 0)
		snprintf(d, sizeof d, "%s/../libexec/sbox/shell", self);
	strcat(d, "/bash");
	if (access(b, X_OK) != 0 || access(d, X_OK) != 0)
		return error_set(err, E_UNAVAILABLE, "sbox agent needs the "
		    "shell links %s and %s (links to sbox that 'make' and 'make "
		    "install' make)", b, d);
	d[strlen(d) - 5] = '\0';
	*bash = strdup(b);
	*dir = realpath(d, NULL);
	if (*bash == NULL || *dir == NULL) {
		free(*bash);
		free(*dir);
		return error_set(err, E_INTERNAL, "the shell links: %s",
		    strerror(errno));
	}
	return 0;
}

/* Make the session for the agent (closes with this connection); the
 * session.create answer or NULL with err. A session that is not sandboxed
 * is refused unless --sandbox none chose it. */
static json_t *
cmd_agent_session(struct client *cl, const struct cmd_agent_kind *k,
    const char *project, const char *sandbox, sbox_error *err)
{
	json_t *params, *r, *c;
	char title[64];

	/* as sbox run: workspace when nothing in the config chooses */
	if (sandbox == NULL && cmd_run_is_default(cl, project, k->name)) {
		sandbox = "workspace";
		fprintf(stderr, "sbox: sandbox workspace (the default for sbox "
		    "agent; choose with --sandbox or in the config)\n");
	}
	snprintf(title, sizeof title, "sbox agent %s", k->name);
	params = json_pack("{s:s, s:s, s:s, s:o, s:b}", "project", project,
	    "provider", k->name, "title", title, "env", environ_json(),
	    "close_with_client", 1);
	if (sandbox != NULL)
		json_object_set_new(params, "sandbox", json_string(sandbox));
	if ((r = client_call(cl, "session.create", params, NULL, 0, err)) ==
	    NULL)
		return NULL;
	exec_quiet_env_warning(r);
	client_print_warnings(r);
	if (json_is_false(json_object_get(r, "sandboxed")) &&
	    (sandbox == NULL || strcmp(sandbox, "none") != 0)) {
		error_set(err, E_INVALID_PARAMS, "the session for %s would not "
		    "be sandboxed (%s): choose a profile with --sandbox (or "
		    "--sandbox none to run its commands with your own rights)",
		    k->name, text_member(r, "provenance", "none"));
		c = client_call(cl, "session.close", json_pack("{s:O}", "session",
		    json_object_get(r, "session")), NULL, 0, err);
		json_decref(c);
		json_decref(r);
		return NULL;
	}
	exec_note_profile(r, 0);
	return r;
}

/* Set the CLI's environment: the session, and its shell pointed at sbox. */
static int
cmd_agent_env(const struct cmd_agent_kind *k, const char *sid,
    const struct client_opts *o, const char *bash, const char *dir)
{
	const char *path = getenv("PATH");
	char *np = NULL;
	int rc = 0;

	rc |= setenv("SBOX_SESSION", sid, 1);
	if (o->socket != NULL)
		rc |= setenv("SBOX_SOCKET", o->socket, 1);
	rc |= setenv("SHELL", bash, 1);
	if (!k->path_bash)
		return rc | setenv("CLAUDE_CODE_SHELL", bash, 1);
	if (asprintf(&np, "%s:%s", dir, path ? path : "/usr/bin:/bin") == -1)
		return -1;
	rc |= setenv("PATH", np, 1);
	free(np);
	return rc;
}

/* Write one line to a /proc file of this process; 0 or -1. */
static int
cmd_agent_proc_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1;

	if (fd >= 0) {
		rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
		close(fd);
	}
	return rc;
}

/* In the CLI's child, before exec: a mount namespace of its own (and a
 * user namespace with its uid and gid mapped to themselves, when not root)
 * where the account's login shell and /bin/bash are sbox (run by such a
 * name it is sbox shell); 0, or -1 with the reason on stderr. Nothing
 * outside changes. */
static int
cmd_agent_bind_bash(void)
{
	char self[PATH_MAX], target[PATH_MAX], map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int user = geteuid() != 0;

	struct passwd *pw = getpwuid(uid);
	char login[PATH_MAX];
	int i;

	/* the account's shell (Codex runs it), and bash (its fallback) */
	login[0] = '\0';
	if (pw != NULL && pw->pw_shell != NULL && pw->pw_shell[0] == '/' &&
	    realpath(pw->pw_shell, login) == NULL)
		login[0] = '\0';
	if (realpath("/proc/self/exe", self) == NULL ||
	    realpath("/bin/bash", target) == NULL) {
		fprintf(stderr, "sbox: /bin/bash or sbox itself: %s\n",
		    strerror(errno));
		return -1;
	}
	if (unshare(CLONE_NEWNS | (user ? CLONE_NEWUSER : 0)) == -1) {
		fprintf(stderr, "sbox: a mount namespace for the agent: %s\n",
		    strerror(errno));
		return -1;
	}
	if (user) {
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid,
		    (unsigned)uid);
		if (cmd_agent_proc_write("/proc/self/setgroups", "deny") == -1 ||
		    cmd_agent_proc_write("/proc/self/uid_map", map) == -1)
			goto fail;
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid,
		    (unsigned)gid);
		if (cmd_agent_proc_write("/proc/self/gid_map", map) == -1)
			goto fail;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		goto fail;
	for (i = 0; i < 2; i++) {
		const char *t = i == 0 ? target : login;

		if (t[0] == '\0' || (i == 1 && strcmp(login, target) == 0))
			continue;
		if (mount(self, t, NULL, MS_BIND, NULL) == -1) {
			snprintf(target, sizeof target, "%s", t);
			goto fail;
		}
	}
	return 0;
fail:
	fprintf(stderr, "sbox: binding sbox over %s for the agent: %s\n",
	    target, strerror(errno));
	return -1;
}

/* Run the CLI and wait for it; its exit status (128+N for signal N). */
static int
cmd_agent_spawn(const char *bin, const struct cmd_agent_kind *k, int argc,
    char **argv)
{
	struct sigaction sa, old_int, old_quit, old_term, old_hup;
	char **av;
	int i, n = 0, st;
	pid_t pid;

	if ((av = calloc((size_t)argc + 8, sizeof *av)) == NULL)
		return EXIT_FAILED;
	av[n++] = (char *)bin;
	for (i = 0; k->pre != NULL && k->pre[i] != NULL; i++)
		av[n++] = (char *)k->pre[i];
	for (i = 0; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	fflush(NULL);
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	/* Ctrl-C and Ctrl-\ are the CLI's (it is in the terminal's group) */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	sa.sa_handler = cmd_agent_forward;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if ((pid = fork()) == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (k->bind_bash && cmd_agent_bind_bash() == -1)
			_exit(126);	/* fail closed: never its own /bin/bash */
		execv(bin, av);
		fprintf(stderr, "sbox: cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	free(av);
	if (pid < 0) {
		fprintf(stderr, "sbox: cannot start %s: %s\n", bin,
		    strerror(errno));
		return EXIT_FAILED;
	}
	cmd_agent_child = pid;
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	cmd_agent_child = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* sbox agent [--sandbox P] [--project DIR] [--bin PATH] NAME [ARGS...]. */
int
cmd_agent(const struct client_opts *o, int argc, char **argv)
{
	const char *sandbox = NULL, *proj = NULL, *binopt = NULL, **slot, *a;
	const struct cmd_agent_kind *k;
	char *bin = NULL, *bash = NULL, *dir = NULL, *project = NULL;
	struct client *cl = NULL;
	json_t *r = NULL, *c;
	sbox_error err;
	int i, rc = EXIT_FAILED;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			table_help("agent", NULL);
			return EXIT_OK;
		}
		slot = strncmp(a, "--sandbox", 9) == 0 ? &sandbox :
		    strncmp(a, "--project", 9) == 0 ? &proj :
		    strncmp(a, "--bin", 5) == 0 ? &binopt : NULL;
		if (slot != NULL)
			a += slot == &binopt ? 5 : 9;
		if (slot == NULL || (*a != '\0' && *a != '='))
			return client_usage("unknown option %s for 'sbox agent'",
			    argv[i]);
		if (*a == '=')
			*slot = a + 1;
		else if (i + 1 < argc)
			*slot = argv[++i];
		else
			return client_usage("option %s needs a value", argv[i]);
	}
	if (i >= argc)
		return client_usage("sbox agent needs an agent: claude, codex or "
		    "gemini");
	if ((k = cmd_agent_find(argv[i])) == NULL)
		return client_usage("sbox agent knows claude, codex and gemini, "
		    "not \"%s\"", argv[i]);
	i++;
	if (sandbox == NULL && (a = getenv("SBOX_SANDBOX")) != NULL && *a)
		sandbox = a;
	if (binopt == NULL && (a = getenv("SBOX_AGENT_BIN")) != NULL && *a)
		binopt = a;
	error_clear(&err);
	if ((bin = cmd_agent_which(binopt ? binopt : k->program)) == NULL) {
		error_set(&err, E_INVALID_PARAMS, "%s not found%s (give its "
		    "path with --bin or SBOX_AGENT_BIN)", binopt ? binopt :
		    k->program, binopt ? "" : " on PATH");
		return client_fail(&err);
	}
	project = proj != NULL ? realpath(proj, NULL) : worktree_top(".");
	if (project == NULL) {
		free(bin);
		return client_usage("project folder %s does not exist", proj ?
		    proj : ".");
	}
	if (cmd_agent_shims(&bash, &dir, &err) == -1 ||
	    (cl = client_connect(o, &err)) == NULL ||
	    (r = cmd_agent_session(cl, k, project, sandbox, &err)) == NULL) {
		rc = client_fail(&err);
		goto out;
	}
	if (cmd_agent_env(k, json_string_value(json_object_get(r, "session")),
	    o, bash, dir) != 0) {
		error_set(&err, E_INTERNAL, "setting the agent's environment: %s",
		    strerror(errno));
		rc = client_fail(&err);
	} else
		rc = cmd_agent_spawn(bin, k, argc - i, argv + i);
	/* the CLI ended: so does its session (were sbox killed, sboxd would
	 * close it with this connection) */
	error_clear(&err);
	c = client_call(cl, "session.close", json_pack("{s:O}", "session",
	    json_object_get(r, "session")), NULL, 0, &err);
	json_decref(c);
out:
	json_decref(r);
	if (cl != NULL)
		client_close(cl);
	free(bin);
	free(bash);
	free(dir);
	free(project);
	return rc;
}
