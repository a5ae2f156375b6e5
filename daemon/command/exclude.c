/* exclude.c: a program started anywhere inside a sandboxed command that
 * matches the profile's `exclude` patterns. sbox-init holds it in the
 * exclusion shim (daemon/init/init-exclude.c) and sends what it read at the
 * execve: argv, the file, the folder, the pattern, and the program's
 * stdin, stdout and stderr. It is asked for like command.run_outside (the
 * reason names the pattern and the command that started it); allowed, it
 * runs on the host with those three descriptors, in the project folder (or
 * the same folder when it was started inside the project), and the program
 * inside ends with its exit status. Refused, denied or timed out, the
 * program inside ends with status 126 and a line on its stderr, and the
 * refusal is in the command's blocked files (op "exec", rule "exclude"). */
#include "daemon/command/exclude.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/command/approval.h"
#include "daemon/command/approval-decide.h"
#include "daemon/command/command.h"
#include "daemon/log.h"
#include "daemon/session/session.h"
#include "policy/plan.h"

/* One program on its way outside. */
struct exclude_job {
	LIST_ENTRY(exclude_job) entry;
	struct session *s;
	long long       xid;
	uint64_t        ct_id;
	pid_t           pid;
	char            process[64];  /* the name of the program's process */
	long long       approval;   /* its request (0 before) */
	char           *program;
	char           *pattern;
};

static LIST_HEAD(, exclude_job) exclude_jobs =
    LIST_HEAD_INITIALIZER(exclude_jobs);

/* Free a job. */
static void
exclude_free(struct exclude_job *j)
{
	LIST_REMOVE(j, entry);
	free(j->program);
	free(j->pattern);
	free(j);
}

/* Keep a descriptor from inside only when a program can use it as stdio
 * (a pipe, a socket, a terminal or other device, a regular file); anything
 * else (a folder, an O_PATH handle) becomes /dev/null. */
static void
exclude_vet_fd(int *fd)
{
	struct stat st;
	int fl = fcntl(*fd, F_GETFL);

	if (fl != -1 && !(fl & O_PATH) && fstat(*fd, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	    S_ISCHR(st.st_mode) || S_ISREG(st.st_mode)))
		return;
	close(*fd);
	*fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
}

/* The public id of the session's command with container id ct_id (0). */
static long long
exclude_command_id(const struct session *s, uint64_t ct_id)
{
	struct command *c;

	TAILQ_FOREACH(c, &s->commands, entry)
		if (!c->outside && c->ct_id == ct_id)
			return c->id;
	return 0;
}

/* Refused: note it on the command that started the program, publish it. */
static void
exclude_note(const struct exclude_job *j, const char *why)
{
	struct container_refusal r = {
		.id = j->ct_id, .pid = j->pid, .process = j->process,
		.op = "exec", .path = j->program, .errnum = EACCES,
		.rule = "exclude", .reason = why, .hidden = 0,
	};

	session_access_file_refused(j->s->ct, &r, j->s);
}

/* The end of a job: tell the program inside (status, and a line when it
 * did not run), note a refusal. */
static void
exclude_done(void *arg, int status, const char *failed)
{
	struct exclude_job *j = arg;
	char *line = NULL;

	if (failed != NULL) {
		if (asprintf(&line, "sbox: %s was not run: it matches the "
		    "exclude pattern \"%s\", so it runs only outside the sandbox "
		    "and only with approval: %s", j->program, j->pattern,
		    failed) < 0)
			line = NULL;
		if (status == 126)
			exclude_note(j, failed);
	}
	if (j->s->ct != NULL)
		container_exclude_done(j->s->ct, j->xid, status, line);
	free(line);
	exclude_free(j);
}

/* The program inside is gone: withdraw its request, or end its run. */
static void
exclude_cancel(struct session *s, long long xid)
{
	struct exclude_job *j;
	struct command *c;
	sbox_error err;

	LIST_FOREACH(j, &exclude_jobs, entry)
		if (j->s == s && j->xid == xid)
			break;
	if (j == NULL || j->approval <= 0)
		return;
	if (approval_decide_withdraw(j->approval, j, "cancelled: the program that "
	    "asked ended inside the sandbox") == 0)
		return;	/* exclude_done ran */
	TAILQ_FOREACH(c, &s->commands, entry)
		if (c->outside && c->approval_id == j->approval &&
		    c->state == COMMAND_RUNNING) {
			log_info("session %s: the program inside that asked for "
			    "command %lld ended; killing it", s->id, c->id);
			command_kill(c, SIGKILL, &err);
		}
}

/* The host path of the program inside (its real path there), through the
 * session's plan: the last mount that covers it must be a bind of a host
 * folder (a file of the sandbox's own tmpfs, or a stand-in, is no host
 * file). malloc'd, or NULL with why. */
static char *
exclude_host_program(const struct session *s, const char *inside,
    const char **why)
{
	const struct plan_mount *m;
	size_t i, n;
	char *host;

	*why = "it is not a file of the host (it lies in the sandbox's own "
	    "folders)";
	if (s->plan == NULL || !s->plan->sandboxed)
		return NULL;
	for (i = s->plan->n_mounts; i-- > 0;) {
		m = &s->plan->mounts[i];
		if (m->dst == NULL || m->kind == PLAN_MOUNT_REMOUNT_RO ||
		    m->kind == PLAN_MOUNT_SYMLINK)
			continue;
		n = strlen(m->dst);
		if (strcmp(m->dst, "/") != 0 && (strncmp(inside, m->dst, n) != 0 ||
		    (inside[n] != '\0' && inside[n] != '/')))
			continue;
		if (strcmp(m->dst, "/") == 0)
			n = 0;
		if ((m->kind != PLAN_MOUNT_RO_BIND && m->kind !=
		    PLAN_MOUNT_RW_BIND) || m->src == NULL || m->src[0] != '/')
			return NULL;
		if (asprintf(&host, "%s%s", strcmp(m->src, "/") == 0 &&
		    inside[n] == '/' ? "" : m->src, inside + n) < 0) {
			*why = "out of memory";
			return NULL;
		}
		return host;
	}
	return NULL;
}

/* The container's on_exclude: ask to run the program outside. */
void
exclude_from_inside(struct container *ct, struct container_exclude *x,
    void *arg)
{
	struct session *s = arg;
	struct approval_params ap;
	struct exclude_job *j;
	char *reason = NULL, *host;
	const char *rel = NULL, *why;
	size_t n = strlen(s->project), i;
	json_t *res = NULL;
	sbox_error err;
	int rc;

	if (x->cancel) {
		exclude_cancel(s, x->xid);
		return;
	}
	if ((j = calloc(1, sizeof *j)) == NULL) {
		container_exclude_done(ct, x->xid, 126, "sbox: out of memory");
		return;
	}
	LIST_INSERT_HEAD(&exclude_jobs, j, entry);
	j->s = s;
	j->xid = x->xid;
	j->ct_id = x->id;
	j->pid = x->pid;
	snprintf(j->process, sizeof j->process, "%s", x->argv != NULL &&
	    json_string_value(json_array_get(x->argv, 0)) ? json_string_value(
	    json_array_get(x->argv, 0)) : "");
	j->program = strdup(x->program);
	j->pattern = strdup(x->pattern);
	for (i = 0; i < 3; i++)
		exclude_vet_fd(&x->fds[i]);
	/* the same folder when it is the project's (the same path on the
	 * host); anything else inside (/tmp, the scratch folder) is not the
	 * host's: the project folder */
	if (strncmp(x->cwd, s->project, n) == 0 && x->cwd[n] == '/')
		rel = x->cwd + n + 1;
	/* the file the kernel was asked to run, on the host: what the person
	 * is shown and what runs (argv[0] is only shown) */
	if (j->program == NULL || j->pattern == NULL) {
		exclude_done(j, 126, "out of memory");
		return;
	}
	if ((host = exclude_host_program(s, x->program, &why)) == NULL) {
		char *line = NULL;
		if (asprintf(&line, "%s may not run outside the sandbox: %s",
		    x->program, why) < 0)
			line = NULL;
		exclude_done(j, 126, line != NULL ? line : why);
		free(line);
		return;
	}
	free(j->program);
	j->program = host;
	if (asprintf(&reason, "excluded by profile (pattern \"%s\"): %s was "
	    "started inside the sandbox by command %lld (pid %d in the "
	    "sandbox, folder %s)", x->pattern, j->program,
	    exclude_command_id(s, x->id), (int)x->pid, x->cwd) < 0) {
		reason = NULL;
		exclude_done(j, 126, "out of memory");
		return;
	}
	memset(&ap, 0, sizeof ap);
	ap.s = s;
	ap.argv = x->argv;
	ap.cwd = rel;
	ap.reason = reason;
	ap.program = j->program;
	ap.dev = x->dev;
	ap.ino = x->ino;
	ap.umask = x->umask;
	ap.stdio = COMMAND_STDIO_FDS;
	ap.given_fds = x->fds;
	ap.on_done = exclude_done;
	ap.done_arg = j;
	ap.id_out = &j->approval;
	error_clear(&err);
	rc = approval_request(&ap, NULL, &res, &err);
	free(reason);
	json_decref(res);
	if (rc == -1)
		exclude_done(j, 126, err.message);
}
