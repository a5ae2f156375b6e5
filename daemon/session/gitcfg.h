/* gitcfg.h: what the repositories of a session's writable folders make
 * host git run or read. sboxd finds every repository (a bounded walk of
 * each guarded root, and the repository a root lies in), reads each one's
 * effective config with the host's own git (`git config --list -z
 * --show-origin --includes`: system, global, repository, worktree config,
 * include.path and includeIf.*.path exactly as git reads them; included
 * files git did not follow now are read too), and collects every path a
 * value names (policy/gitconfig.c). The files read are watched by their
 * stat identity: a change found at a command's start scans again. */
#ifndef SBOX_GITCFG_H
#define SBOX_GITCFG_H

#include <stddef.h>
#include <sys/stat.h>

#include "daemon/session/gitcfg-watch.h"
#include "protocol/error.h"

#define GITCFG_REPOS_MAX  128      /* repositories in one scan */
#define GITCFG_DIRS_MAX   200000   /* folders one scan walks */
#define GITCFG_DEPTH_MAX  48       /* depth of the walk */
#define GITCFG_FILES_MAX  64       /* included files read per repository */
#define GITCFG_OUT_MAX    (4 * 1024 * 1024) /* bytes of one git listing */
#define GITCFG_TIMEOUT_MS 5000     /* one git run */

/* One scan's result. */
struct gitcfg {
	char               **paths;   /* the named paths, every spelling */
	unsigned char       *kinds;   /* per path: 0 absent, 1 file, 2 folder,
	                                 3 something else (a symlink) */
	struct gitcfg_ident *watch;   /* the files whose change rescans */
	size_t               n_watch;
	char               **roots;   /* the roots it was made for */
	char                *home;
	int                  repos;   /* repositories found */
};

/* Scan the roots (NULL-terminated absolute folders); home is the user's
 * home folder (HOME for git, `~`). 0, or -1 with err (the host's git is
 * missing while a repository exists, a git run failed or timed out, a
 * bound was passed: the session must not start unprotected). */
int gitcfg_scan(char *const *roots, const char *home, struct gitcfg *out,
    sbox_error *err);
/* Has any watched file changed since the scan? */
int gitcfg_changed(const struct gitcfg *g);
/* Release what g owns. */
void gitcfg_free(struct gitcfg *g);
/* Forget the listings kept from earlier scans (gitcfg-cache.c: a scan
 * whose repositories, files and git are all as an earlier one's runs no
 * git). */
void gitcfg_cache_clear(void);

#endif
