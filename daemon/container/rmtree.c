/* rmtree.c: removing a folder tree a sandbox may have filled with anything
 * (links, folders without permissions), never following links. */
#define _XOPEN_SOURCE 700
#include "daemon/container/rmtree.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/log.h"

/* nftw: make folders writable so that their contents can be removed. */
static int
rmtree_chmod(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D || type == FTW_DNR)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

/* nftw: remove one entry, depth first. */
static int
rmtree_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st; (void)type; (void)ftw;
	if (remove(path) == -1 && errno != ENOENT)
		log_warn("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* Remove path and everything below it. */
void
rmtree(const char *path)
{
	struct stat st;

	if (path == NULL || lstat(path, &st) == -1)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	/* an empty folder (a session's scratch, most often): one call; rmdir
	 * follows no link and fails on anything in it or mounted on it */
	if (rmdir(path) == 0)
		return;
	nftw(path, rmtree_chmod, 16, FTW_PHYS | FTW_MOUNT);
	nftw(path, rmtree_one, 16, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
}
