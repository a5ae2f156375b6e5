/* gitcfg-internal.h: what gitcfg.c (reading) and gitcfg-find.c (finding
 * the repositories) share. */
#ifndef SBOX_GITCFG_INTERNAL_H
#define SBOX_GITCFG_INTERNAL_H

#include "daemon/session/gitcfg.h"

#include <sys/types.h>

/* One repository: its git folder and its worktree's top (NULL: bare). */
struct gitcfg_repo {
	char *gitdir;
	char *top;
};

/* A scan in progress. */
struct gitcfg_state {
	char              *git;      /* the host's git, or NULL */
	const char        *home;
	struct gitcfg_repo repos[GITCFG_REPOS_MAX];
	size_t             n_repos;
	size_t             dirs;
	char             **paths;
	char             **watch;
	sbox_error        *err;
	/* the global listing (no repository), read once for every root
	 * that needs it, started early so that it runs beside the
	 * repositories' own */
	pid_t              global_pid;   /* running, or 0 */
	int                global_fd;
	char              *global_out;   /* its listing once read */
	size_t             global_len;
};

/* Walk the folder held by dir (path; dir is closed) for repositories. */
int gitcfg_find_walk(struct gitcfg_state *st, int dir, const char *path,
    int depth);
/* The repository root lies in, as git discovers it (upward). */
int gitcfg_find_up(struct gitcfg_state *st, const char *root);
/* The git folders inside a git folder's sub ("worktrees", "modules"). */
int gitcfg_find_inner(struct gitcfg_state *st, const char *gitdir,
    const char *sub, int depth);

struct timespec;
/* A kept listing for this scan, its repositories found (gitcfg-cache.c):
 * 1 with copies of its paths and watch list in st, or 0 when there is none
 * whose files (and git) are all as they were. */
int gitcfg_cache_get(struct gitcfg_state *st, char *const *roots);
/* Keep a finished scan that started at start (CLOCK_REALTIME): the paths
 * and watch list as read, before gitcfg_finish, and the n_ids files' identities. */
void gitcfg_cache_put(const struct gitcfg_state *st, char *const *roots,
    char **paths, char **watch, const struct gitcfg_ident *ids, size_t n_ids,
    const struct timespec *start);

#endif
