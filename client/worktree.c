/* worktree.c: `sbox session create --worktree BRANCH` makes a linked git
 * worktree for the person (with their own git and rights, on the host) and
 * the session works in it; `sbox session close ID --remove-worktree`
 * removes it again. git runs with an argv (no shell) and the person's
 * environment; the worktree lies beside the repository, in
 * REPO-worktrees/BRANCH (slashes of the branch become '-'). */
#include "client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Run git with argv (stdout to /dev/null unless keep_out, stderr ours);
 * its exit status, or -1 with err when it cannot run. */
static int
worktree_git(char *const *argv, int quiet, sbox_error *err)
{
	posix_spawn_file_actions_t fa;
	int st, rc;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return error_set_errno(err, E_IO, rc, "cannot run git");
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error_set_errno(err, E_IO, errno, "waiting for git");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Is branch a name git accepts for a branch (and safe as a folder name)? */
static int
worktree_branch_ok(const char *branch)
{
	char *argv[] = { "git", "check-ref-format", "--branch", (char *)branch,
	    NULL };
	sbox_error err;

	if (branch[0] == '\0' || branch[0] == '-' || strstr(branch, "..") ||
	    strlen(branch) > 200)
		return 0;
	error_clear(&err);
	return worktree_git(argv, 1, &err) == 0;
}

/* Make a worktree of repo on branch (created from HEAD when it does not
 * exist); *path gets its folder (malloc'd). */
int
worktree_add(const char *repo, const char *branch, char **path,
    sbox_error *err)
{
	char ref[300], dir[PATH_MAX], *p;
	int rc;

	*path = NULL;
	if (!worktree_branch_ok(branch))
		return error_set_field(err, E_INVALID_PARAMS, "worktree",
		    "\"%s\" is not a branch name git accepts", branch);
	if (snprintf(dir, sizeof dir, "%s-worktrees/%s", repo, branch) >=
	    (int)sizeof dir)
		return error_set_field(err, E_INVALID_PARAMS, "worktree",
		    "the worktree's path would be too long");
	for (p = dir + strlen(repo) + strlen("-worktrees/"); *p; p++)
		if (*p == '/')
			*p = '-';
	snprintf(ref, sizeof ref, "refs/heads/%s", branch);
	{
		char *verify[] = { "git", "-C", (char *)repo, "rev-parse",
		    "--verify", "--quiet", ref, NULL };
		char *add_existing[] = { "git", "-C", (char *)repo, "worktree",
		    "add", "--quiet", dir, (char *)branch, NULL };
		char *add_new[] = { "git", "-C", (char *)repo, "worktree", "add",
		    "--quiet", "-b", (char *)branch, dir, NULL };

		if ((rc = worktree_git(verify, 1, err)) < 0)
			return -1;
		if ((rc = worktree_git(rc == 0 ? add_existing : add_new, 0,
		    err)) < 0)
			return -1;
	}
	if (rc != 0)
		return error_set(err, E_IO, "git worktree add %s in %s failed "
		    "(exit %d; see git's message above)", branch, repo, rc);
	if ((*path = realpath(dir, NULL)) == NULL)
		return error_set_errno(err, E_IO, errno, "%s", dir);
	return 0;
}

/* Remove the linked worktree at path (refused when it has changes: git
 * says which). */
int
worktree_remove(const char *path, sbox_error *err)
{
	char git[PATH_MAX];
	struct stat st;
	char *argv[] = { "git", "-C", (char *)path, "worktree", "remove",
	    (char *)path, NULL };
	int rc;

	snprintf(git, sizeof git, "%s/.git", path);
	if (lstat(git, &st) < 0 || !S_ISREG(st.st_mode))
		return error_set_field(err, E_INVALID_PARAMS, "project",
		    "%s is not a linked git worktree: nothing removed", path);
	if ((rc = worktree_git(argv, 0, err)) < 0)
		return -1;
	if (rc != 0)
		return error_set(err, E_IO, "git worktree remove %s failed (exit "
		    "%d; see git's message above): the session is closed, the "
		    "worktree kept", path, rc);
	return 0;
}

/* The top folder of the git work tree holding dir (the nearest folder up
 * from it with a .git entry, "/" excepted), else dir itself; realpath'd,
 * malloc'd, NULL when dir does not exist. */
char *
worktree_top(const char *dir)
{
	char *real = realpath(dir, NULL), buf[PATH_MAX], git[PATH_MAX + 8], *p;
	struct stat st;

	if (real == NULL)
		return NULL;
	snprintf(buf, sizeof buf, "%s", real);
	while (strcmp(buf, "/") != 0) {
		snprintf(git, sizeof git, "%s/.git", buf);
		if (lstat(git, &st) == 0) {
			free(real);
			return strdup(buf);
		}
		if ((p = strrchr(buf, '/')) == NULL || p == buf)
			break;
		*p = '\0';
	}
	return real;
}
