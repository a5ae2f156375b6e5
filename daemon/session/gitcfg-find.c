/* gitcfg-find.c: find every repository of the guarded roots (see
 * gitcfg.h): a bounded walk without following links (a .git folder or a
 * link to one, a gitfile and the folder it names, a git folder of any
 * name), the repository a root lies in (as git discovers it, upward), and
 * the git folders inside git folders (worktrees/NAME, modules/...). */
#include "daemon/session/gitcfg-internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/path.h"

/* Remember a repository (once per git folder). */
static int
gitcfg_find_add(struct gitcfg_state *st, const char *gitdir, const char *top)
{
	size_t i;

	for (i = 0; i < st->n_repos; i++)
		if (strcmp(st->repos[i].gitdir, gitdir) == 0)
			return 0;
	if (st->n_repos == GITCFG_REPOS_MAX)
		return error_set(st->err, E_LIMIT, "more than %d git "
		    "repositories in the sandbox's writable folders",
		    GITCFG_REPOS_MAX);
	st->repos[st->n_repos].gitdir = strdup(gitdir);
	st->repos[st->n_repos].top = top != NULL ? strdup(top) : NULL;
	if (st->repos[st->n_repos].gitdir == NULL || (top != NULL &&
	    st->repos[st->n_repos].top == NULL))
		return error_nomem(st->err);
	st->n_repos++;
	return 0;
}

/* Is (dir, "") a git folder: HEAD with objects and refs, or with
 * commondir? */
static int
gitcfg_find_is_gitdir(int dir)
{
	struct stat s;

	if (fstatat(dir, "HEAD", &s, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (fstatat(dir, "commondir", &s, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return fstatat(dir, "objects", &s, 0) == 0 &&
	    fstatat(dir, "refs", &s, 0) == 0;
}

/* The folder a gitfile (".git" holding "gitdir: X") names, resolved
 * against base; NULL when it names none. */
static char *
gitcfg_find_gitfile(int dir, const char *name, const char *base)
{
	char buf[PATH_MAX + 16], *s, *e;
	ssize_t n;
	int fd;

	if ((fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) < 0)
		return NULL;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 7 || strncmp(buf, "gitdir:", 7) != 0)
		return NULL;
	buf[n] = '\0';
	s = buf + 7 + strspn(buf + 7, " \t");
	e = s + strcspn(s, "\r\n");
	*e = '\0';
	return s[0] != '\0' ? path_resolve(base, s) : NULL;
}

/* The repository a folder holds: a .git folder (or a link to one), a
 * gitfile; 1 when it is one, 0 not, -1 on error. */
static int
gitcfg_find_dot_git(struct gitcfg_state *st, int dir, const char *path)
{
	struct stat s;
	char *git, *real, *gd;
	int rc = 0;

	if (fstatat(dir, ".git", &s, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISLNK(s.st_mode) && fstatat(dir, ".git", &s, 0) < 0)
		return 0;
	if ((git = path_join(path, ".git")) == NULL)
		return error_nomem(st->err);
	if (S_ISDIR(s.st_mode)) {
		real = realpath(git, NULL);
		rc = gitcfg_find_add(st, real != NULL ? real : git, path);
		free(real);
	} else if (S_ISREG(s.st_mode) &&
	    (gd = gitcfg_find_gitfile(dir, ".git", path)) != NULL) {
		rc = gitcfg_find_add(st, gd, path);
		free(gd);
	}
	free(git);
	return rc < 0 ? -1 : 1;
}

/* Walk the folder held by dir (path) for repositories: its .git, a git
 * folder of any name (bare), and below, without following links. */
int
gitcfg_find_walk(struct gitcfg_state *st, int dir, const char *path, int depth)
{
	struct dirent *de;
	struct stat s;
	char *sub;
	DIR *d;
	int fd, rc = 0;

	if (++st->dirs > GITCFG_DIRS_MAX || depth > GITCFG_DEPTH_MAX) {
		close(dir);
		return error_set(st->err, E_LIMIT, "the sandbox's writable "
		    "folders hold more than %d folders (or deeper than %d) to "
		    "look for git repositories in", GITCFG_DIRS_MAX,
		    GITCFG_DEPTH_MAX);
	}
	if (gitcfg_find_is_gitdir(dir)) {
		close(dir);
		return gitcfg_find_add(st, path, NULL);
	}
	if (gitcfg_find_dot_git(st, dir, path) < 0) {
		close(dir);
		return -1;
	}
	if ((d = fdopendir(dir)) == NULL) {
		close(dir);
		return 0;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") ==
		    0 || strcmp(de->d_name, ".git") == 0)
			continue;
		if (de->d_type != DT_DIR && (de->d_type != DT_UNKNOWN ||
		    fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(s.st_mode)))
			continue;
		if ((fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		if ((sub = path_join(path, de->d_name)) == NULL) {
			close(fd);
			rc = error_nomem(st->err);
			break;
		}
		rc = gitcfg_find_walk(st, fd, sub, depth + 1);
		free(sub);
	}
	closedir(d);
	return rc;
}

/* The repository root lies in, as git discovers it (upward from root). */
int
gitcfg_find_up(struct gitcfg_state *st, const char *root)
{
	char *p = strdup(root), *slash;
	int fd, rc = 0;

	if (p == NULL)
		return error_nomem(st->err);
	while ((slash = strrchr(p, '/')) != NULL && p[1] != '\0') {
		*(slash == p ? slash + 1 : slash) = '\0';
		if ((fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			break;
		if (gitcfg_find_is_gitdir(fd))
			rc = gitcfg_find_add(st, p, NULL) < 0 ? -1 : 1;
		else
			rc = gitcfg_find_dot_git(st, fd, p);
		close(fd);
		if (rc != 0)
			break;
	}
	free(p);
	return rc < 0 ? -1 : 0;
}

/* The git folders inside a git folder: worktrees/NAME (with the top its
 * gitdir file names) and modules/NAME at any depth. */
int
gitcfg_find_inner(struct gitcfg_state *st, const char *gitdir, const char *sub,
    int depth)
{
	char *dir = path_join(gitdir, sub), *child, *top, *slash;
	struct dirent *de;
	int fd, rc = 0, wt = strcmp(sub, "worktrees") == 0;
	DIR *d;

	if (dir == NULL)
		return error_nomem(st->err);
	if (depth > 8 || (d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (child = path_join(dir, de->d_name))
		    == NULL)
			continue;
		fd = open(child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd >= 0 && gitcfg_find_is_gitdir(fd)) {
			top = wt ? gitcfg_find_gitfile(fd, "gitdir", child) : NULL;
			if (top != NULL && (slash = strrchr(top, '/')) != NULL)
				*(slash == top ? slash + 1 : slash) = '\0';
			rc = gitcfg_find_add(st, child, top);
			free(top);
			if (rc == 0 && !wt)
				rc = gitcfg_find_inner(st, child, "modules", depth + 1);
		} else if (fd >= 0 && !wt)	/* modules/a/b: a name with '/' */
			rc = gitcfg_find_inner(st, dir, de->d_name, depth + 1);
		if (fd >= 0)
			close(fd);
		free(child);
	}
	closedir(d);
	free(dir);
	return rc;
}
