/* container-standin.h: the hidden areas served by stand-ins
 * (container-standin.c; the file system itself is standin.c). */
#ifndef SBOX_CONTAINER_STANDIN_H
#define SBOX_CONTAINER_STANDIN_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>
#include "policy/render-bwrap.h"
#include "protocol/error.h"

struct container;
struct container_binds;

/* What the process that becomes bwrap mounts before its exec. */
struct container_standin_stage {
	int                                fuse_fd;   /* -1: the launcher
	                                                 opens it in its user
	                                                 namespace and sends
	                                                 it on fd_sock */
	int                                fd_sock;
	char                               dir[4096]; /* the stage folder */
	int                                userns;    /* a user namespace of
	                                                 its own first */
	uid_t                              uid;       /* owner of the uppers */
	gid_t                              gid;
	size_t                             n;
	const struct render_bwrap_standin *si;
};

/* At start: decide whether this sboxd reads refusals through stand-ins
 * (SBOX_READS_BY=standins; state_dir holds a user's stage folder). 0, or
 * -1 with err when they were asked for and cannot be. */
int container_standin_init(const char *state_dir, sbox_error *err);
/* The stage folder a container renders its stand-ins under (drop_ids:
 * root's staged namespace), or NULL when stand-ins are off. */
const char *container_standin_stage_dir(int drop_ids);
/* Is src a path under a stage (a bind not to hold)? */
int container_standin_is_stage(const char *src);
/* How reads are reported, and why when not by stand-ins: for status. */
const char *container_standin_mechanism(const char **why);
/* After rendering: serve c's stand-ins and fill b->si (when rr has any).
 * 0, or -1 with err. */
int container_standin_start(struct container *c,
    const struct render_bwrap_result *rr, int drop_ids, uid_t uid,
    gid_t gid, struct container_binds *b, sbox_error *err);
/* After the launcher's fork: close sboxd's copy of its end. */
void container_standin_spawned(struct container *c);
/* In the process that becomes bwrap: mount the stage. -1 with errno (and
 * *what, the step that failed). */
int container_standin_mount(const struct container_standin_stage *st,
    const char **what);
/* sbox-init's fs_done {token}: the refusal was told; answer the open. */
void container_standin_done(struct container *c, json_t *m);
/* Release c's stand-ins (teardown). */
void container_standin_free(struct container *c);
/* c's stand-ins as JSON for status (NULL: none). */
json_t *container_standin_describe(const struct container *c);

#endif
