/* gitcfg-watch.h: the files a git config scan read, by their stat
 * identity: a change to any of them makes the scan stale. */
#ifndef SBOX_GITCFG_WATCH_H
#define SBOX_GITCFG_WATCH_H

#include <stddef.h>
#include <sys/stat.h>

/* A watched file's identity (absent: all zero). */
struct gitcfg_ident {
	char            *path;
	dev_t            dev;
	ino_t            ino;
	off_t            size;
	struct timespec  mtime, ctime;
	int              exists;
};

/* Fill id (its path set) from what is at its path now. */
void gitcfg_watch_fill(struct gitcfg_ident *id);
/* Has any of the n files changed since it was filled? */
int gitcfg_watch_changed(const struct gitcfg_ident *w, size_t n);
/* Free the n identities' paths and the array. */
void gitcfg_watch_free(struct gitcfg_ident *w, size_t n);

#endif
