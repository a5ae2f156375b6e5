/* gitcfg.c: read what the config of the guarded roots' repositories
 * names, with the host's git (see gitcfg.h; gitcfg-find.c finds them). */
#include "daemon/session/gitcfg.h"
#include "daemon/session/gitcfg-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/gitconfig.h"
#include "policy/path.h"
#include "policy/strv.h"

/* Is path (or what it leads to) inside one of the roots? */
static int
gitcfg_in_roots(const char *path, char *const *roots)
{
	char *real = realpath(path, NULL);
	size_t i;
	int in = 0;

	for (i = 0; !in && roots != NULL && roots[i] != NULL; i++)
		in = path_is_under(path, roots[i]) || (real != NULL &&
		    path_is_under(real, roots[i]));
	free(real);
	return in;
}

/* The host's git: the first executable `git` on sboxd's PATH or in the
 * usual folders, never one a sandbox could have written (inside a guarded
 * root); NULL when there is none. */
static char *
gitcfg_find_git(char *const *roots)
{
	const char *env = getenv("PATH");
	char *list, *dir, *save = NULL, *p;
	size_t n;

	n = (env != NULL ? strlen(env) : 0) + 64;
	if ((list = malloc(n)) == NULL)
		return NULL;
	snprintf(list, n, "%s:/usr/bin:/bin:/usr/local/bin", env != NULL ?
	    env : "");
	for (dir = strtok_r(list, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/' || (p = path_join(dir, "git")) == NULL)
			continue;
		if (access(p, X_OK) == 0 && !gitcfg_in_roots(p, roots)) {
			free(list);
			return p;
		}
		free(p);
	}
	free(list);
	return NULL;
}

/* Start the host's git with argv (argv[0] unused) in a clean environment
 * (HOME, PATH, XDG_CONFIG_HOME, LC_ALL=C: nothing of sboxd's own), from
 * "/", stdin and stderr on /dev/null: its pid and the read end of its
 * output; 0, or -1 with err. `git config` runs no hook and no fsmonitor. */
static int
gitcfg_run_start(struct gitcfg_state *st, char **argv, pid_t *pidp, int *fdp)
{
	char home[PATH_MAX + 8], path[4096], xdg[PATH_MAX + 24];
	const char *xe = getenv("XDG_CONFIG_HOME"), *pe = getenv("PATH");
	char *env[6] = { home, path, "LC_ALL=C", NULL, NULL, NULL };
	posix_spawn_file_actions_t fa;
	int p[2], e;
	pid_t pid;

	snprintf(home, sizeof home, "HOME=%s", st->home);
	snprintf(path, sizeof path, "PATH=%s", pe != NULL && strlen(pe) < 4000 ?
	    pe : "/usr/bin:/bin");
	if (xe != NULL && xe[0] == '/' && strlen(xe) < PATH_MAX) {
		snprintf(xdg, sizeof xdg, "XDG_CONFIG_HOME=%s", xe);
		env[3] = xdg;
	}
	argv[0] = st->git;
	if (pipe2(p, O_CLOEXEC) < 0)
		return error_set_errno(st->err, E_SANDBOX_SETUP, errno, "pipe");
	/* posix_spawn (a vfork): sboxd's page tables are not copied */
	if ((e = posix_spawn_file_actions_init(&fa)) == 0) {
		if ((e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
		    O_RDWR, 0)) == 0 &&
		    (e = posix_spawn_file_actions_adddup2(&fa, p[1], 1)) == 0 &&
		    (e = posix_spawn_file_actions_adddup2(&fa, 0, 2)) == 0 &&
		    (e = posix_spawn_file_actions_addchdir_np(&fa, "/")) == 0)
			e = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		return error_set_errno(st->err, E_SANDBOX_SETUP, e, "cannot run "
		    "the host's git (%s)", argv[0]);
	}
	*pidp = pid;
	*fdp = p[0];
	return 0;
}

/* Read the listing of a git started by gitcfg_run_start (pid, its output
 * fd, closed here; `what` names it in errors), bounded in time and
 * output, and reap it: as gitcfg_run. */
static int
gitcfg_run_collect(struct gitcfg_state *st, const char *what, pid_t pid,
    int fd, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	struct pollfd pfd;
	long long left = GITCFG_TIMEOUT_MS;
	struct timespec t0, t1;
	char *buf;
	int status, timed_out = 0, pr;
	ssize_t r;

	if ((buf = malloc(cap)) == NULL) {
		close(fd);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return error_nomem(st->err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if ((pr = poll(&pfd, 1, (int)left)) < 0 && errno == EINTR)
			goto clock;
		if (pr <= 0) {
			timed_out = 1;
			break;
		}
		if (n == cap) {
			char *nb;
			if (cap >= GITCFG_OUT_MAX || (nb = realloc(buf, cap * 2)) ==
			    NULL) {
				timed_out = 2;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		if ((r = read(fd, buf + n, cap - n)) < 0 && errno == EINTR)
			goto clock;
		if (r <= 0)
			break;
		n += (size_t)r;
clock:
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = GITCFG_TIMEOUT_MS - ((t1.tv_sec - t0.tv_sec) * 1000LL +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0) {
			timed_out = 1;
			break;
		}
	}
	close(fd);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(buf);
		return error_set(st->err, E_SANDBOX_SETUP, "the host's git "
		    "could not list the config of %s (%s)", what,
		    timed_out == 1 ? "it took too long" : timed_out == 2 ?
		    "its listing is too long" : "it failed");
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Run the host's git with argv, bounded in time and output: the listing
 * in *out (malloc'd, *len bytes); 0, or -1 with err. */
static int
gitcfg_run(struct gitcfg_state *st, char **argv, char **out, size_t *len)
{
	pid_t pid;
	int fd;

	if (gitcfg_run_start(st, argv, &pid, &fd) < 0)
		return -1;
	return gitcfg_run_collect(st, argv[1], pid, fd, out, len);
}

/* The global listing's argv (config outside any repository). */
static char *gitcfg_global_argv[] = { NULL, "config", "--list", "-z",
    "--show-origin", "--includes", NULL };

/* Start the global listing now: it runs while the repositories' are read. */
static void
gitcfg_global_start(struct gitcfg_state *st)
{
	if (st->global_pid > 0 || st->global_out != NULL)
		return;
	if (gitcfg_run_start(st, gitcfg_global_argv, &st->global_pid,
	    &st->global_fd) < 0) {
		st->global_pid = 0;	/* run again when needed, and fail then */
		error_clear(st->err);
	}
}

/* The global listing (a copy in *out): read once, from the early start
 * when there was one. */
static int
gitcfg_global_listing(struct gitcfg_state *st, char **out, size_t *len)
{
	pid_t pid = st->global_pid;

	if (st->global_out == NULL) {
		st->global_pid = 0;
		if (pid > 0 ? gitcfg_run_collect(st, gitcfg_global_argv[1], pid,
		    st->global_fd, &st->global_out, &st->global_len) < 0 :
		    gitcfg_run(st, gitcfg_global_argv, &st->global_out,
		    &st->global_len) < 0)
			return -1;
	}
	if ((*out = malloc(st->global_len + 1)) == NULL)
		return error_nomem(st->err);
	memcpy(*out, st->global_out, st->global_len);
	*len = st->global_len;
	return 0;
}

/* A started global listing nobody read: stopped and reaped. */
static void
gitcfg_global_end(struct gitcfg_state *st)
{
	int status;

	if (st->global_pid > 0) {
		close(st->global_fd);
		kill(st->global_pid, SIGKILL);
		while (waitpid(st->global_pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	st->global_pid = 0;
	free(st->global_out);
	st->global_out = NULL;
}

/* Read one listing (a repository's, or a file's) into the scan; the
 * includes it names but did not read are read in turn (once each). */
static int
gitcfg_read(struct gitcfg_state *st, const struct gitconfig_where *w,
    char **argv, char ***seen)
{
	char **files = NULL, **inc = NULL, *buf = NULL;
	char *fargv[] = { NULL, "config", "--list", "-z", "--show-origin",
	    "--includes", "--file", NULL, NULL };
	size_t len = 0, i;
	int rc;

	if ((argv == gitcfg_global_argv ? gitcfg_global_listing(st, &buf,
	    &len) : gitcfg_run(st, argv, &buf, &len)) < 0)
		return -1;
	rc = gitconfig_list_paths(w, buf, len, &st->paths, &files, &inc,
	    st->err);
	free(buf);
	for (i = 0; rc == 0 && files != NULL && files[i] != NULL; i++)
		if (strv_add_unique(&st->watch, files[i]) < 0 ||
		    strv_add_unique(seen, files[i]) < 0)
			rc = error_nomem(st->err);
	for (i = 0; rc == 0 && inc != NULL && inc[i] != NULL; i++) {
		if (strv_add_unique(&st->watch, inc[i]) < 0) {
			rc = error_nomem(st->err);
			break;
		}
		/* a conditional include git did not follow now may match
		 * later (another branch, another folder): read it too */
		if (strv_contains(*seen, inc[i]) || access(inc[i], R_OK) < 0)
			continue;
		if (strv_len(*seen) >= GITCFG_FILES_MAX) {
			rc = error_set(st->err, E_LIMIT, "more than %d git config "
			    "files included", GITCFG_FILES_MAX);
			break;
		}
		if (strv_add_unique(seen, inc[i]) < 0) {
			rc = error_nomem(st->err);
			break;
		}
		fargv[7] = inc[i];
		rc = gitcfg_read(st, w, fargv, seen);
	}
	strv_free(files);
	strv_free(inc);
	return rc;
}

/* The git folder's own config files that git did not read (a repository
 * git will not open: an extension it does not know, a broken HEAD, a test
 * fixture; another git may), each read as a file (the global and system
 * ones are read per root). 0, or -1 when one cannot be read either. */
static int
gitcfg_repo_files(struct gitcfg_state *st, const struct gitconfig_where *w,
    char ***seen)
{
	static const char *const own[] = { "config", "config.worktree", NULL };
	char *fargv[] = { NULL, "config", "--list", "-z", "--show-origin",
	    "--includes", "--file", NULL, NULL };
	sbox_error first = *st->err;
	char *p, *common;
	size_t i, b;
	int fd, rc = 0;

	error_clear(st->err);
	if ((fd = open(w->gitdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;	/* gone: nothing of it is read */
	common = NULL;
	{	/* commondir holds a path, relative to the git folder */
		char buf[PATH_MAX];
		ssize_t n;
		int cfd = openat(fd, "commondir", O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC | O_NONBLOCK);
		if (cfd >= 0 && (n = read(cfd, buf, sizeof buf - 1)) > 0) {
			buf[n] = '\0';
			buf[strcspn(buf, "\r\n")] = '\0';
			common = buf[0] != '\0' ? path_resolve(w->gitdir, buf) :
			    NULL;
		}
		if (cfd >= 0)
			close(cfd);
	}
	close(fd);
	for (b = 0; rc == 0 && b < 2; b++) {
		for (i = 0; rc == 0 && own[i] != NULL; i++) {
			if ((p = path_join(b == 0 ? w->gitdir : common, own[i])) ==
			    NULL) {
				rc = error_nomem(st->err);
				break;
			}
			if (access(p, F_OK) == 0 && !strv_contains(*seen, p) &&
			    strv_add_unique(seen, p) == 0) {
				fargv[7] = p;
				rc = gitcfg_read(st, w, fargv, seen);
			}
			free(p);
		}
		if (common == NULL)
			break;
	}
	free(common);
	if (rc < 0 && first.message[0] != '\0')
		error_context(st->err, "%s", first.message);
	return rc;
}

/* Read a repository's effective config. */
static int
gitcfg_repo(struct gitcfg_state *st, const struct gitcfg_repo *r)
{
	char gd[PATH_MAX + 16], wt[PATH_MAX + 16], **seen = NULL;
	char *argv[] = { NULL, gd, wt, "config", "--list", "-z",
	    "--show-origin", "--includes", NULL };
	/* (worktrees/ and modules/: a worktree or submodule added later) */
	static const char *const own[] = { "config", "config.worktree",
	    "commondir", "worktrees", "modules", NULL };
	struct gitconfig_where w = { r->top, r->gitdir, st->home, r->gitdir };
	size_t i;
	char *p;
	int rc;

	snprintf(gd, sizeof gd, "--git-dir=%s", r->gitdir);
	if (r->top != NULL)
		snprintf(wt, sizeof wt, "--work-tree=%s", r->top);
	else
		memmove(argv + 2, argv + 3, 6 * sizeof *argv);
	for (i = 0; own[i] != NULL; i++) {
		if ((p = path_join(r->gitdir, own[i])) == NULL ||
		    strv_add_unique(&st->watch, p) < 0) {
			free(p);
			return error_nomem(st->err);
		}
		free(p);
	}
	rc = gitcfg_read(st, &w, argv, &seen);
	if (rc == 0)
		error_clear(st->err);
	rc = gitcfg_repo_files(st, &w, &seen);
	strv_free(seen);
	return rc;
}

/* The global and system config outside any repository, once per root
 * (its relative values as if a repository were made there later). */
static int
gitcfg_global(struct gitcfg_state *st, const char *root)
{
	char *gd = path_join(root, ".git"), **seen = NULL;
	struct gitconfig_where w = { root, gd, st->home, "/" };
	char *cfg = path_join(gd, "config");
	struct stat s;
	int rc;

	/* a repository made at the root later (git init, git clone; a
	 * gitfile): its config, and .git itself unless a folder (whose
	 * times change with every commit) */
	if (gd == NULL || cfg == NULL || ((lstat(gd, &s) < 0 ||
	    !S_ISDIR(s.st_mode)) && strv_add_unique(&st->watch, gd) < 0) ||
	    strv_add_unique(&st->watch, cfg) < 0) {
		free(gd);
		free(cfg);
		return error_nomem(st->err);
	}
	free(cfg);
	rc = gitcfg_read(st, &w, gitcfg_global_argv, &seen);
	strv_free(seen);
	free(gd);
	return rc;
}

/* The physical spelling of path (its deepest existing folder resolved),
 * or NULL when it is the same. */
static char *
gitcfg_physical(const char *path)
{
	char *cp = strdup(path), *slash, *real, *out = NULL;
	size_t n;

	if (cp == NULL)
		return NULL;
	for (;;) {
		if ((real = realpath(cp, NULL)) != NULL)
			break;
		if ((slash = strrchr(cp, '/')) == NULL || slash == cp)
			break;
		*slash = '\0';
	}
	if (real != NULL) {
		n = strlen(cp);
		out = malloc(strlen(real) + strlen(path + n) + 1);
		if (out != NULL)
			sprintf(out, "%s%s", strcmp(real, "/") == 0 &&
			    path[n] == '/' ? "" : real, path + n);
		free(real);
	}
	free(cp);
	if (out != NULL && strcmp(out, path) == 0) {
		free(out);
		out = NULL;
	}
	return out;
}
/* The result: every spelling of the paths with its kind, and the watched
 * files with their identities. */
static int
gitcfg_finish(struct gitcfg_state *st, struct gitcfg *out)
{
	const char *globals[] = { "/etc/gitconfig", NULL, NULL, NULL };
	char *g1 = path_join(st->home, ".gitconfig"), *g2, *phys;
	const char *xe = getenv("XDG_CONFIG_HOME");
	char **linked = NULL;
	struct stat s;
	size_t i, n, m;
	int rc;

	g2 = xe != NULL && xe[0] == '/' ? path_join(xe, "git/config") :
	    path_join(st->home, ".config/git/config");
	globals[1] = g1;
	globals[2] = g2;
	for (i = 0; i < 3; i++)
		if (globals[i] != NULL && strv_add_unique(&st->watch,
		    globals[i]) < 0)
			break;
	free(g1);
	free(g2);
	/* a spelling through a symlink: its physical one too (the guard
	 * decides on resolved folders), and no bind on the link's */
	m = strv_len(st->paths);
	for (i = 0; i < m; i++) {
		if ((phys = gitcfg_physical(st->paths[i])) == NULL)
			continue;
		rc = strv_add_unique(&st->paths, phys) < 0 ||
		    strv_add_unique(&linked, st->paths[i]) < 0;
		free(phys);
		if (rc) {
			strv_free(linked);
			return error_nomem(st->err);
		}
	}
	n = strv_len(st->paths);
	if (n > 0 && (out->kinds = calloc(n, 1)) == NULL) {
		strv_free(linked);
		return error_nomem(st->err);
	}
	for (i = 0; i < n; i++)
		if (lstat(st->paths[i], &s) == 0)
			out->kinds[i] = strv_contains(linked, st->paths[i]) ? 3 :
			    S_ISREG(s.st_mode) ? 1 : S_ISDIR(s.st_mode) ? 2 : 3;
	strv_free(linked);
	out->paths = st->paths;
	st->paths = NULL;
	n = strv_len(st->watch);
	if (n > 0 && (out->watch = calloc(n, sizeof *out->watch)) == NULL)
		return error_nomem(st->err);
	for (i = 0; i < n; i++) {
		out->watch[i].path = st->watch[i];
		st->watch[i] = NULL;
		gitcfg_watch_fill(&out->watch[i]);
	}
	out->n_watch = n;
	out->repos = (int)st->n_repos;
	return 0;
}

/* Is a repository found at root's top? (It reads all of root's config
 * listing already.) */
static int
gitcfg_root_has_repo(const struct gitcfg_state *st, const char *root)
{
	size_t k;

	for (k = 0; k < st->n_repos; k++)
		if (st->repos[k].top != NULL &&
		    strcmp(st->repos[k].top, root) == 0)
			return 1;
	return 0;
}

/* Scan the roots. */
int
gitcfg_scan(char *const *roots, const char *home, struct gitcfg *out,
    sbox_error *err)
{
	struct gitcfg_state st;
	struct timespec start;
	char **raw_paths = NULL, **raw_watch = NULL;
	size_t i;
	int rc = 0, fd, ok = 1, cached = 0;

	memset(out, 0, sizeof *out);
	memset(&st, 0, sizeof st);
	clock_gettime(CLOCK_REALTIME, &start);
	st.home = home;
	st.err = err;
	st.git = gitcfg_find_git(roots);
	if ((out->roots = strv_copy(roots, &ok)) == NULL && roots != NULL &&
	    roots[0] != NULL)
		return error_nomem(err);
	if ((out->home = strdup(home)) == NULL)
		rc = error_nomem(err);
	for (i = 0; rc == 0 && roots != NULL && roots[i] != NULL; i++) {
		if ((fd = open(roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) <
		    0)
			continue;
		if ((rc = gitcfg_find_walk(&st, fd, roots[i], 0)) == 0)
			rc = gitcfg_find_up(&st, roots[i]);
	}
	for (i = 0; rc == 0 && i < st.n_repos; i++)
		rc = gitcfg_find_inner(&st, st.repos[i].gitdir, "worktrees", 0) < 0 ||
		    gitcfg_find_inner(&st, st.repos[i].gitdir, "modules", 0) < 0 ?
		    -1 : 0;
	if (rc == 0 && st.git == NULL && st.n_repos > 0)
		rc = error_set(err, E_SANDBOX_SETUP, "a git repository is in "
		    "the sandbox's writable folders but the host has no git: "
		    "sbox reads each repository's config with the host's git "
		    "to keep what it names read-only (install git)");
	/* the listings of an earlier scan whose files are all unchanged */
	if (rc == 0 && st.git != NULL && gitcfg_cache_get(&st, roots))
		cached = 1;
	/* a root without a repository at its top reads the global listing:
	 * it starts now, beside the repositories' */
	for (i = 0; rc == 0 && !cached && st.git != NULL && roots != NULL &&
	    roots[i] != NULL; i++) {
		if (!gitcfg_root_has_repo(&st, roots[i])) {
			gitcfg_global_start(&st);
			break;
		}
	}
	for (i = 0; rc == 0 && !cached && st.git != NULL && i < st.n_repos; i++)
		rc = gitcfg_repo(&st, &st.repos[i]);
	for (i = 0; rc == 0 && !cached && st.git != NULL && roots != NULL &&
	    roots[i] != NULL; i++) {
		/* (a repository at the root read all of it already) */
		if (!gitcfg_root_has_repo(&st, roots[i]))
			rc = gitcfg_global(&st, roots[i]);
	}
	if (rc == 0 && !cached) {
		raw_paths = strv_copy(st.paths, &ok);
		raw_watch = strv_copy(st.watch, &ok);
	}
	if (rc == 0)
		rc = gitcfg_finish(&st, out);
	if (rc == 0 && !cached && ok)
		gitcfg_cache_put(&st, roots, raw_paths, raw_watch, out->watch,
		    out->n_watch, &start);
	strv_free(raw_paths);
	strv_free(raw_watch);
	gitcfg_global_end(&st);
	for (i = 0; i < st.n_repos; i++) {
		free(st.repos[i].gitdir);
		free(st.repos[i].top);
	}
	strv_free(st.paths);
	strv_free(st.watch);
	free(st.git);
	if (rc < 0)
		gitcfg_free(out);
	return rc < 0 ? -1 : 0;
}

/* Has any watched file changed since the scan? */
int
gitcfg_changed(const struct gitcfg *g)
{
	return gitcfg_watch_changed(g->watch, g->n_watch);
}

/* Release what g owns. */
void
gitcfg_free(struct gitcfg *g)
{
	strv_free(g->paths);
	free(g->kinds);
	gitcfg_watch_free(g->watch, g->n_watch);
	strv_free(g->roots);
	free(g->home);
	memset(g, 0, sizeof *g);
}
