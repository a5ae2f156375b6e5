/* approval-what.c: what a run-outside request would run, fixed when it is
 * asked for: the folder (opened and held), the program (the file the asker
 * fixed, or argv[0] in the host's PATH), whether the sandbox could have
 * written it, the environment and the umask. */
#include "daemon/command/approval-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/command/hostenv.h"
#include "daemon/session/session.h"
#include "policy/plan.h"

/* Is path the folder dir or inside it? */
static int
approval_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The folder an outside run starts in: the project by default, a relative
 * cwd inside the project (after symlinks: it may not lead out of it), an
 * absolute one as given. Symlinks are resolved, so the person is shown the
 * real folder, and that folder is opened now without following any symlink
 * and held: a swap after the prompt cannot move the run elsewhere. Fills
 * t->dir_fd and t->dir. */
static int
approval_folder(const struct session *s, const char *cwd,
    struct hostexec_target *t, sbox_error *err)
{
	char *want = NULL, *real, *proj = NULL;
	int rel = cwd != NULL && cwd[0] != '\0' && cwd[0] != '/';

	if (cwd == NULL || cwd[0] == '\0')
		want = strdup(s->project);
	else if (cwd[0] == '/')
		want = strdup(cwd);
	else if (asprintf(&want, "%s/%s", s->project, cwd) == -1)
		want = NULL;
	if (want == NULL)
		return error_nomem(err);
	if ((real = realpath(want, NULL)) == NULL) {
		error_set_errno(err, E_INVALID_PARAMS, errno, "cwd %s", want);
		snprintf(err->field, sizeof err->field, "cwd");
		free(want);
		return -1;
	}
	free(want);
	if (rel && ((proj = realpath(s->project, NULL)) == NULL ||
	    !approval_under(real, proj)))
		goto outside;
	t->dir_fd = hostexec_open_dir(real, &t->dir, err);
	free(real);
	if (t->dir_fd < 0) {
		free(proj);
		return -1;
	}
	/* What was opened is what is shown; it must still be inside. */
	if (rel && !approval_under(t->dir, proj))
		goto outside;
	free(proj);
	return 0;
outside:
	free(proj);
	return error_set_field(err, E_INVALID_PARAMS, "cwd",
	    "a relative cwd must stay inside the project folder");
}

/* Can the session's sandbox write the file at path (a folder its plan
 * lets it write: project, read-write folders, scratch, caches)? For an
 * unsandboxed session: is it inside the project? */
static int
approval_writable(const struct session *s, const char *path)
{
	const struct plan_path_rule *r;
	char *proj;
	int in;

	if (s->plan != NULL && s->plan->sandboxed) {
		/* The sandbox's /tmp is its own tmpfs, not the host's. */
		r = plan_explain(s->plan, path);
		return r != NULL && r->access == PLAN_ACCESS_RW &&
		    strcmp(r->rule, PLAN_RULE_TMP) != 0;
	}
	if ((proj = realpath(s->project, NULL)) == NULL)
		return 0;
	in = approval_under(path, proj);
	free(proj);
	return in;
}

/* Why the sandbox could have written the program (it, or the folder it
 * lies in, is writable inside; it is owned by someone else than root or
 * the person; anyone may write it), or NULL. A static string. */
static const char *
approval_unsafe(const struct session *s, const char *program,
    const struct stat *st)
{
	char *dir, *slash;
	int w;

	if (approval_writable(s, program))
		return "it lies in a folder the sandbox can write";
	if ((dir = strdup(program)) == NULL)
		return "out of memory";
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir ? 1 : 0] = '\0';
	w = approval_writable(s, dir);
	free(dir);
	if (w)
		return "it lies in a folder the sandbox can write";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "it is owned by someone else than root or you";
	if (st->st_mode & (S_IWOTH | S_IWGRP))
		return "others than its owner may write it";
	return NULL;
}

/* Fix what a request would run: the folder (held), the program (the file
 * the asker fixed, or argv[0] looked up in the host's PATH; absolute,
 * symlinks resolved), the variables added and dropped, the whole
 * environment and the umask. On success a owns all of it; *unsafe says
 * why the program may not run outside (NULL when it may). */
int
approval_prepare(struct approval *a, const struct approval_params *p,
    const char **unsafe, sbox_error *err)
{
	extern char **environ;
	struct stat st;

	*unsafe = NULL;
	a->target.dir_fd = -1;
	if (approval_folder(p->s, p->cwd, &a->target, err) == -1)
		return -1;
	if (p->program != NULL && p->program[0] != '/')
		return error_set_field(err, E_INVALID_PARAMS, "program",
		    "the program must be an absolute path");
	a->target.program = hostexec_resolve(p->program != NULL ? p->program :
	    json_string_value(json_array_get(p->argv, 0)),
	    hostexec_host_path(), a->target.dir_fd, &st, err);
	if (a->target.program == NULL)
		return -1;
	if (p->program != NULL && p->ino != 0 &&
	    ((unsigned long long)st.st_dev != p->dev ||
	    (unsigned long long)st.st_ino != p->ino))
		return error_set_field(err, E_DENIED, "program", "%s on the host "
		    "is not the file that was started inside the sandbox",
		    a->target.program);
	a->target.dev = st.st_dev;
	a->target.ino = st.st_ino;
	a->target.umask = p->umask >= 0 && p->umask <= 0777 ?
	    (mode_t)p->umask : 022;
	*unsafe = approval_unsafe(p->s, a->target.program, &st);
	a->writable = *unsafe != NULL;
	a->cwd_writable = approval_writable(p->s, a->target.dir);
	if (hostenv_filter(p->env, &a->env, &a->dropped, err) == -1)
		return -1;
	a->target.env = hostenv_build(environ, a->env, a->target.dir, err);
	return a->target.env == NULL ? -1 : 0;
}

