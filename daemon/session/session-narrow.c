/* session-narrow.c: a session created from inside a sandbox is at most what
 * its parent's PLAN allows, not its parent's list of paths: its project must
 * be a folder the parent's plan lets it write and that no protection of the
 * parent covers (git metadata, files that run programs later, hidden
 * folders); it gets its parent's resolved profile when it names none; and
 * every read-only or hidden rule of the parent that falls inside its folders
 * is carried into its own plan (policy_plan's inherited rules). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/path.h"
#include "policy/plan.h"
#include "policy/policy.h"
#include "policy/profile.h"

/* True when dir (a held folder) looks like a git folder: HEAD with objects
 * and refs, or HEAD with commondir. */
static int
session_narrow_is_gitdir(int dir)
{
	struct stat st;

	if (fstatat(dir, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (fstatat(dir, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return fstatat(dir, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstatat(dir, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

#define SESSION_NARROW_DIRS_MAX  100000 /* folders looked into below */
#define SESSION_NARROW_DEPTH_MAX 64     /* and how deep */
#define SESSION_NARROW_UP_MAX    256    /* parents looked at above */

/* Is the folder held by dir, or one of its parents up to stop (the
 * parent's project, or "/"), a git folder or named .git? 1 when so. */
static int
session_narrow_git_up(int dir, const struct stat *stop)
{
	struct stat cur, up, git;
	int fd, pfd, i, rc = 0;

	if ((fd = dup(dir)) < 0)
		return 1;	/* cannot tell: refused */
	for (i = 0; i < SESSION_NARROW_UP_MAX; i++) {
		if (fstat(fd, &cur) < 0 || session_narrow_is_gitdir(fd)) {
			rc = 1;
			break;
		}
		if (stop != NULL && cur.st_dev == stop->st_dev &&
		    cur.st_ino == stop->st_ino)
			break;
		if ((pfd = openat(fd, "..", O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) < 0 || fstat(pfd, &up) < 0) {
			if (pfd >= 0)
				close(pfd);
			rc = 1;
			break;
		}
		/* the folder is its parent's .git */
		if (fstatat(pfd, ".git", &git, AT_SYMLINK_NOFOLLOW) == 0 &&
		    git.st_dev == cur.st_dev && git.st_ino == cur.st_ino) {
			close(pfd);
			rc = 1;
			break;
		}
		close(fd);
		fd = pfd;
		if (up.st_dev == cur.st_dev && up.st_ino == cur.st_ino)
			break;	/* "/" */
	}
	close(fd);
	return rc || i == SESSION_NARROW_UP_MAX;
}

/* Does the folder held by dir hold git metadata below it: a git folder of
 * any name, or a .git (its own top's .git excepted: its plan keeps it)?
 * 1 when so, or when the walk cannot finish (refused); *dirs counts. */
static int
session_narrow_git_down(int dir, int depth, size_t *dirs)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, rc = 0;

	if (++*dirs > SESSION_NARROW_DIRS_MAX ||
	    depth > SESSION_NARROW_DEPTH_MAX)
		return 1;
	if ((fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, ".git") == 0) {
			if (depth > 0)
				rc = 1;
			continue;
		}
		if (de->d_type != DT_DIR && (de->d_type != DT_UNKNOWN ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode)))
			continue;
		if ((fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		rc = session_narrow_is_gitdir(fd) ||
		    session_narrow_git_down(fd, depth + 1, dirs);
		close(fd);
	}
	closedir(d);
	return rc;
}

/* May a session created inside parent work in project (held as fd)? Only
 * in a folder its plan lets it write, outside every protection, neither
 * inside git metadata (any parent up to the parent's project a git folder
 * of any name, or a .git) nor holding any (a git folder of any name, a
 * .git below its top). */
int
session_narrow_project(const struct session *parent, const char *project,
    int fd, sbox_error *err)
{
	const struct plan_path_rule *r;
	const char *c;
	struct stat top;
	size_t dirs = 0;

	if (!parent->plan->sandboxed)
		return 0;
	r = plan_explain(parent->plan, project);
	if (r == NULL || r->access != PLAN_ACCESS_RW ||
	    (strcmp(r->rule, PLAN_RULE_PROJECT) != 0 &&
	    strcmp(r->rule, PLAN_RULE_PROFILE_RW) != 0 &&
	    strcmp(r->rule, PLAN_RULE_SCRATCH) != 0))
		return error_set_field(err, E_NARROWING, "project", "a session "
		    "created inside a sandbox can only work in a folder its "
		    "sandbox may write (%s is %s%s%s)", project, r ?
		    plan_access_name(r->access) : "not in the sandbox",
		    r ? ": " : "", r ? r->rule : "");
	for (c = project; (c = strstr(c, "/.git")) != NULL; c += 5) {
		if (c[5] == '\0' || c[5] == '/')
			return error_set_field(err, E_NARROWING, "project",
			    "%s is inside git metadata (%s): a session cannot "
			    "work there", project, PLAN_RULE_RUNS_LATER);
	}
	if (session_narrow_is_gitdir(fd))
		return error_set_field(err, E_NARROWING, "project", "%s is a git "
		    "folder (%s): a session cannot work there", project,
		    PLAN_RULE_RUNS_LATER);
	if (parent->project_fd < 0 || fstat(parent->project_fd, &top) < 0 ||
	    session_narrow_git_up(fd, &top))
		return error_set_field(err, E_NARROWING, "project", "%s is inside "
		    "git metadata (%s): a session cannot work there", project,
		    PLAN_RULE_RUNS_LATER);
	if (session_narrow_git_down(fd, 0, &dirs))
		return error_set_field(err, E_NARROWING, "project", "%s holds "
		    "git metadata below it (a git folder, or more than %d "
		    "folders to look through): a session made inside a sandbox "
		    "cannot work there", project, SESSION_NARROW_DIRS_MAX);
	return 0;
}

/* Resolve the profile for the request: under a parent sandbox, the
 * parent's resolved profile when none is named, else the named one
 * narrowed to the parent's. */
struct profile *
session_narrow_resolve(const struct session_params *p, sbox_error *err)
{
	struct resolve_request req = { p->sandbox, p->model, p->provider,
	    p->project, p->space };
	struct profile *prof, *narrowed;
	struct session *parent;

	if (p->parent == NULL)
		return policy_resolve(sboxd.config, &req, err);
	if ((parent = session_find(p->parent, err)) == NULL)
		return NULL;
	if (p->sandbox == NULL)
		return profile_copy(parent->profile, err);
	if ((prof = policy_resolve(sboxd.config, &req, err)) == NULL)
		return NULL;
	narrowed = policy_narrow(parent->profile, prof, err);
	profile_free(prof);
	return narrowed;
}
