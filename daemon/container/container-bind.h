/* container-bind.h: binds held as descriptors from check to mount, and the
 * unprivileged host uid a root sboxd runs its sandboxes as (see
 * container-bind.c). */
#ifndef SBOX_CONTAINER_BIND_H
#define SBOX_CONTAINER_BIND_H

#include <stddef.h>
#include <sys/types.h>
#include "protocol/error.h"

/* The uid (and gid) a root sboxd runs sandboxes as when /etc/subuid has
 * no range for the user "sbox": far above any real account, owning nothing. */
#define CONTAINER_BIND_UID 2147352576u /* 0x7ffe0000 */

/* Who runs a sandbox and how its bind sources may be reached. */
struct container_ids {
	uid_t        run_uid;        /* host uid bwrap runs as; (uid_t)-1: sboxd's */
	gid_t        run_gid;
	uid_t        owner;          /* files of owner appear as run_uid in the */
	gid_t        gowner;         /* binds below idmap_roots (root only) */
	char *const *idmap_roots;    /* destinations whose binds are idmapped */
	char *const *writable_roots; /* folders a sandbox can write: a symlink in
	                                them is never followed */
	char *const *strict_roots;   /* destinations whose sources may have no
	                                symlink at all (everything but system
	                                folders and tools) */
	const char  *held_path;      /* a source already held (the project) */
	int          held_fd;        /* its O_PATH descriptor, or -1 */
	int          fd_base;        /* first fd number bwrap gets them at */
};

/* What container_bind_hold holds for bwrap. */
struct container_binds {
	int    *fds;      /* O_PATH fds (user) or detached trees (root) */
	int    *is_dir;
	size_t  n;
	int     staged;   /* root: attach under /tmp and drop to run_uid */
	int     base_fd;
	uid_t   run_uid;
	gid_t   run_gid;
	const struct container_standin_stage *si; /* stand-ins to mount
	                                   first (container-standin.c), or NULL */
};

/* Open path as O_PATH, component by component: a symlink is followed only
 * with follow set and outside the writable roots. -1 with err (and errno). */
int container_bind_open(const char *path, int follow, char *const *writable,
    sbox_error *err);
/* Rewrite bwrap's argv (*argv, *argc: replaced) so that each bind uses a
 * held descriptor; b gets them (container_bind_free). */
int container_bind_hold(char ***argv, size_t *argc,
    const struct container_ids *ids, struct container_binds *b,
    sbox_error *err);
/* The host uid and gid a root sboxd runs its sandboxes as. */
void container_bind_sandbox_ids(uid_t *uid, gid_t *gid);
struct plan;
/* Fill ids' writable, strict and idmap roots from a plan. */
int container_bind_roots(const struct plan *p, struct container_ids *ids,
    sbox_error *err);
/* Free what container_bind_roots filled. */
void container_bind_roots_free(struct container_ids *ids);
/* Close every held descriptor. */
void container_bind_free(struct container_binds *b);

#endif
