/* gitcfg-watch.c: the files a git config scan read, by their stat
 * identity (device, inode, size, mtime, ctime; or absent). */
#include "daemon/session/gitcfg-watch.h"

#include <stdlib.h>
#include <string.h>

/* Fill id from what is at its path now. */
void
gitcfg_watch_fill(struct gitcfg_ident *id)
{
	struct stat s;

	id->exists = stat(id->path, &s) == 0;
	if (!id->exists)
		return;
	id->dev = s.st_dev;
	id->ino = s.st_ino;
	id->size = s.st_size;
	id->mtime = s.st_mtim;
	id->ctime = s.st_ctim;
}

/* Has any of the n files changed since it was filled? */
int
gitcfg_watch_changed(const struct gitcfg_ident *w, size_t n)
{
	struct gitcfg_ident now;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&now, 0, sizeof now);
		now.path = w[i].path;
		gitcfg_watch_fill(&now);
		if (now.exists != w[i].exists || (now.exists &&
		    (now.dev != w[i].dev || now.ino != w[i].ino ||
		    now.size != w[i].size ||
		    now.mtime.tv_sec != w[i].mtime.tv_sec ||
		    now.mtime.tv_nsec != w[i].mtime.tv_nsec ||
		    now.ctime.tv_sec != w[i].ctime.tv_sec ||
		    now.ctime.tv_nsec != w[i].ctime.tv_nsec)))
			return 1;
	}
	return 0;
}

/* Free the n identities' paths and the array. */
void
gitcfg_watch_free(struct gitcfg_ident *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i].path);
	free(w);
}
