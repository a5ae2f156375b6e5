/* standin.h: the hidden areas' stand-ins, a FUSE file system served by
 * sboxd that tells which process opened what (standin.c). */
#ifndef SBOX_STANDIN_H
#define SBOX_STANDIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "protocol/error.h"

struct event_base;

/* One hidden area: the host path whose names it mirrors (existence and
 * kind only, never a byte of content). */
struct standin_area {
	const char *path;
	int         is_dir;
	int         report_root; /* a listing of the area itself is a read
	                            refused (a hidden folder), not only what
	                            is under it (the home, /run) */
	int         open_err;    /* what an open of a file gets (ENOENT: a
	                            name of a hidden folder; EACCES: a hidden
	                            file's stand-in, as /dev/null on nodev) */
};

/* A refused read seen by the stand-ins: tid is the reading thread as the
 * sandbox numbers it; reply with standin_release(token) once the refusal
 * has been told (or it is answered after STANDIN_HOLD_MS anyway). */
typedef void (*standin_read_cb)(void *arg, pid_t tid, const char *path,
    int err, uint64_t token);

#define STANDIN_HOLD_MS 250

struct standin;

/* Serve a new FUSE connection on base for areas (copied). With fd set,
 * *fd gets the /dev/fuse descriptor to mount it with (sboxd keeps its
 * own); NULL: the mounter opens it (in a user namespace of its own, whose
 * mount only takes a device opened there) and sboxd gets it with
 * standin_attach. uid, gid: the owner its files show, as the mounting
 * namespace numbers it. NULL with err. */
struct standin *standin_new(struct event_base *base,
    const struct standin_area *areas, size_t n, uid_t uid, gid_t gid,
    standin_read_cb cb, void *arg, int *fd, sbox_error *err);
/* Serve the device the mounter opened (taken); -1 when one is served. */
int standin_attach(struct standin *s, int fd);
/* Answer the held open of token (a refusal was told). */
void standin_release(struct standin *s, uint64_t token);
/* Requests served and refused reads seen (for status). */
void standin_counts(const struct standin *s, uint64_t *requests,
    uint64_t *reads);
/* Stop serving, answer what is held, close; NULL is fine. */
void standin_free(struct standin *s);
/* Can this sboxd serve stand-ins at all (/dev/fuse opens)? NULL, or why
 * not. */
const char *standin_available(void);

#endif
