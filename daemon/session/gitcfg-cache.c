/* gitcfg-cache.c: the listings of the last scans, kept while nothing they
 * read can have changed, so that a session started like the last one runs
 * no `git config` (a process started and waited for: 1 to 3 ms of every
 * create, 30 ms on a loaded machine).
 *
 * A scan's result is a function of what git read: the files it names as
 * origins, the includes, the repositories' own config files, the system and
 * global config (all in its watch list), git itself and the environment it
 * ran in (HOME, PATH, XDG_CONFIG_HOME); and of the repositories found, which
 * every scan walks for anew. An entry is kept for one key (the roots, home,
 * git's path, that environment and the repositories found) with the
 * identity of every watched file and of git's binary (device, inode, size,
 * mtime, ctime: what gitcfg_watch_changed compares) and is used only while all of
 * them are the same. A scan that read a file changed at about the time it
 * ran (a timestamp not older than the scan's start, less a margin for the
 * file system's coarse clock) is not kept: git may have read it before a
 * change that kept its size and timestamp. */
#include "daemon/session/gitcfg-internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "policy/strv.h"

#define GITCFG_CACHE_MAX   8
#define GITCFG_CACHE_SLACK 100000000LL   /* ns: coarse file timestamps */

struct gitcfg_cache_entry {
	char         *key;
	char        **paths;    /* the paths as read, before gitcfg_finish */
	char        **watch;
	struct gitcfg_ident *idents; /* the watched files and git, as they were */
	size_t        n_idents;
	unsigned long used;
};

static struct gitcfg_cache_entry gitcfg_cache[GITCFG_CACHE_MAX];
static unsigned long gitcfg_cache_clock;

/* Append s and a separator to the key being built; -1 on no memory. */
static int
gitcfg_cache_add(char **key, size_t *len, const char *s)
{
	size_t n = strlen(s != NULL ? s : "");
	char *k = realloc(*key, *len + n + 2);

	if (k == NULL)
		return -1;
	memcpy(k + *len, s != NULL ? s : "", n);
	k[*len + n] = '\n';
	k[*len + n + 1] = '\0';
	*key = k;
	*len += n + 1;
	return 0;
}

/* The key of a scan whose repositories are found (NULL: no memory). */
static char *
gitcfg_cache_key(const struct gitcfg_state *st, char *const *roots)
{
	char *key = NULL;
	size_t len = 0, i;
	int bad = 0;

	bad |= gitcfg_cache_add(&key, &len, "roots");
	for (i = 0; roots != NULL && roots[i] != NULL; i++)
		bad |= gitcfg_cache_add(&key, &len, roots[i]);
	bad |= gitcfg_cache_add(&key, &len, "home");
	bad |= gitcfg_cache_add(&key, &len, st->home);
	bad |= gitcfg_cache_add(&key, &len, st->git);
	bad |= gitcfg_cache_add(&key, &len, getenv("PATH"));
	bad |= gitcfg_cache_add(&key, &len, getenv("XDG_CONFIG_HOME"));
	bad |= gitcfg_cache_add(&key, &len, "repos");
	for (i = 0; i < st->n_repos; i++) {
		bad |= gitcfg_cache_add(&key, &len, st->repos[i].gitdir);
		bad |= gitcfg_cache_add(&key, &len, st->repos[i].top != NULL ?
		    st->repos[i].top : "(bare)");
	}
	if (bad) {
		free(key);
		return NULL;
	}
	return key;
}

/* Forget one entry. */
static void
gitcfg_cache_drop(struct gitcfg_cache_entry *e)
{
	free(e->key);
	strv_free(e->paths);
	strv_free(e->watch);
	gitcfg_watch_free(e->idents, e->n_idents);
	memset(e, 0, sizeof *e);
}

/* A kept listing for this scan (its repositories found): copies of its
 * paths and watch list in st (1), or 0 when there is none still true. */
int
gitcfg_cache_get(struct gitcfg_state *st, char *const *roots)
{
	char *key = gitcfg_cache_key(st, roots);
	struct gitcfg_cache_entry *e = NULL;
	char **paths, **watch;
	int ok = 1, ok2 = 1;
	size_t i;

	for (i = 0; key != NULL && i < GITCFG_CACHE_MAX; i++)
		if (gitcfg_cache[i].key != NULL &&
		    strcmp(gitcfg_cache[i].key, key) == 0)
			e = &gitcfg_cache[i];
	free(key);
	if (e == NULL)
		return 0;
	if (gitcfg_watch_changed(e->idents, e->n_idents)) {
		gitcfg_cache_drop(e);
		return 0;
	}
	paths = strv_copy(e->paths, &ok);
	watch = strv_copy(e->watch, &ok2);
	if (!ok || !ok2) {
		strv_free(paths);
		strv_free(watch);
		return 0;
	}
	st->paths = paths;
	st->watch = watch;
	e->used = ++gitcfg_cache_clock;
	return 1;
}

/* Is a timestamp at or after the scan's start, less the slack? */
static int
gitcfg_cache_recent(const struct timespec *t, const struct timespec *start)
{
	long long a = (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
	long long b = (long long)start->tv_sec * 1000000000LL + start->tv_nsec;

	return a >= b - GITCFG_CACHE_SLACK;
}

/* Keep a finished scan: its paths and watch list as read (before
 * gitcfg_finish), and its n files' identities (made after it read them). */
void
gitcfg_cache_put(const struct gitcfg_state *st, char *const *roots,
    char **paths, char **watch, const struct gitcfg_ident *ids, size_t n_ids,
    const struct timespec *start)
{
	struct gitcfg_cache_entry n, *slot = NULL;
	size_t i;
	int ok = 1;

	if (st->git == NULL)
		return;
	for (i = 0; i < n_ids; i++)
		if (ids[i].exists && (gitcfg_cache_recent(&ids[i].mtime,
		    start) || gitcfg_cache_recent(&ids[i].ctime, start)))
			return;	/* changed about when git read it */
	memset(&n, 0, sizeof n);
	if ((n.key = gitcfg_cache_key(st, roots)) == NULL)
		return;
	n.paths = strv_copy(paths, &ok);
	n.watch = strv_copy(watch, &ok);
	n.n_idents = n_ids + 1;
	if (!ok || (n.idents = calloc(n.n_idents, sizeof *n.idents)) == NULL) {
		gitcfg_cache_drop(&n);
		return;
	}
	for (i = 0; i < n_ids; i++) {
		n.idents[i] = ids[i];
		n.idents[i].path = strdup(ids[i].path);
		if (n.idents[i].path == NULL)
			ok = 0;
	}
	/* git itself (another git may read other system config) */
	n.idents[i].path = strdup(st->git);
	if (n.idents[i].path == NULL)
		ok = 0;
	else
		gitcfg_watch_fill(&n.idents[i]);
	if (!n.idents[i].exists)
		ok = 0;
	if (!ok) {
		gitcfg_cache_drop(&n);
		return;
	}
	n.used = ++gitcfg_cache_clock;
	/* its own key's slot, else an empty one, else the least used */
	for (i = 0; slot == NULL && i < GITCFG_CACHE_MAX; i++)
		if (gitcfg_cache[i].key != NULL &&
		    strcmp(gitcfg_cache[i].key, n.key) == 0)
			slot = &gitcfg_cache[i];
	for (i = 0; slot == NULL && i < GITCFG_CACHE_MAX; i++)
		if (gitcfg_cache[i].key == NULL)
			slot = &gitcfg_cache[i];
	if (slot == NULL) {
		slot = &gitcfg_cache[0];
		for (i = 1; i < GITCFG_CACHE_MAX; i++)
			if (gitcfg_cache[i].used < slot->used)
				slot = &gitcfg_cache[i];
	}
	gitcfg_cache_drop(slot);
	*slot = n;
}

/* Forget every kept listing. */
void
gitcfg_cache_clear(void)
{
	size_t i;

	for (i = 0; i < GITCFG_CACHE_MAX; i++)
		gitcfg_cache_drop(&gitcfg_cache[i]);
}
