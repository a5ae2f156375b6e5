/* init-walk.h: path walking as the caller sees it (init-walk.c). */
#ifndef SBOX_INIT_WALK_H
#define SBOX_INIT_WALK_H

#include "daemon/init/init-types.h"

/* Set up: remember procfs's device (NULL or a reason). */
const char *init_walk_init(void);
/* Close a location's descriptor. */
void init_walk_loc_close(struct init_walk_loc *l);
/* Read a NUL-terminated string at addr of the caller; 0 or an errno. */
int init_walk_read_str(struct init_walk_caller *t, uint64_t addr, char *buf,
    size_t len);
/* The caller's thread group and umask (read once, when needed). */
int init_walk_status(struct init_walk_caller *t);
/* Is the notification still the same live call? */
int init_walk_valid(struct init_walk_caller *t);
/* The absolute path a descriptor leads to, or -1. */
int init_walk_fd_path(int fd, char *buf, size_t len);
/* Resolve (dirfd, path) as the caller sees them: parent held + name. */
int init_walk_resolve(struct init_walk_caller *t, int dirfd, const char *path,
    struct init_walk_loc *l, int *hops);
/* Follow a final symlink (INIT_WALK_MAGIC for a procfs link); 0 when the
 * name is no symlink or absent. */
int init_walk_follow(struct init_walk_caller *t, struct init_walk_loc *l,
    int *hops, int *followed);
/* Is path inside one of the guarded roots (string check)? */
int init_walk_under_roots(const char *path);
/* The folder and name of what an O_PATH descriptor holds when it is a named
 * file in a guarded root (l->fd -1 otherwise); 0 or an errno. */
int init_walk_loc_of(int pfd, struct init_walk_loc *l);
/* The same for a caller's fd (its O_PATH copy in *pfd). */
int init_walk_of_fd(struct init_walk_caller *t, int fd,
    struct init_walk_loc *l, int *pfd);

/* The file a call that changes an existing file acts on: the caller's fd
 * (use_fd or path NULL), or path resolved and followed (unless nofollow;
 * through /proc/PID/fd/N the file it leads to, its copy in *pfd). */
int init_walk_target(struct init_walk_caller *t, int dirfd, const char *path,
    int nofollow, int use_fd, struct init_walk_loc *l, int *pfd);

#endif
