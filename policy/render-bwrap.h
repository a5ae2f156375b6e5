/* render-bwrap.h: a plan as bubblewrap arguments (for `bwrap --args FD`).
 *
 * Protected paths that do not exist on the host (plan_mount.missing) inside a
 * writable bind: the caller creates an empty placeholder (file or folder) at
 * each path of result.placeholders before starting bwrap, bwrap binds it
 * read-only over itself (or covers it as the mount kind says), so inside the
 * sandbox the path exists, is read-only and, being a mount point, cannot be
 * removed or renamed. Every folder between the writable bind and a protected
 * path is bound over itself too, so that renaming a parent (mv .git .git2;
 * mkdir .git) fails with EBUSY. The caller removes the placeholders when the
 * session ends (and after a crash), only while they are still empty. */
#ifndef SBOX_RENDER_BWRAP_H
#define SBOX_RENDER_BWRAP_H

#include <stddef.h>
#include "policy/plan.h"
#include "protocol/error.h"

/* Where sbox-init appears inside the sandbox. */
#define RENDER_BWRAP_INIT_PATH "/.sbox/init"
/* The proxy port sbox-init listens on (127.0.0.1 and ::1) by default. */
#define RENDER_BWRAP_PROXY_PORT 3128

struct render_bwrap_opts {
	const char *init_path;     /* host path of sbox-init (required) */
	int         ctl_fd;        /* control socket fd number as bwrap sees it */
	int         seccomp_fd;    /* fd bwrap reads the BPF program from, -1 none */
	int         proxy_port;    /* 0 = RENDER_BWRAP_PROXY_PORT */
	const char *hide_file_src; /* covers hidden files; NULL = /dev/null (an
	                              open of it then fails: nodev mount) */
};

/* A path the caller must create (empty) before bwrap and remove after. */
struct render_bwrap_placeholder {
	char *root;   /* host folder of the writable bind it lies in */
	char *path;   /* absolute host path, below root */
	int   is_dir; /* folder (1) or regular file (0) */
};

struct render_bwrap_result {
	char  **argv;  /* NULL-terminated bwrap options, for --args (bwrap
	                  ignores a command given there) */
	size_t  argc;
	char  **cmd;   /* NULL-terminated command to put after
	                  `bwrap --args FD --`: sbox-init and its arguments */
	size_t  cmdc;
	struct render_bwrap_placeholder *placeholders; /* in creation order */
	size_t  n_placeholders;
};

/* Render the plan; on success fill *out (free with render_bwrap_free). */
int render_bwrap(const struct plan *p, const struct render_bwrap_opts *o,
    struct render_bwrap_result *out, sbox_error *err);
/* Join the arguments NUL-separated (each one NUL-terminated) for --args. */
int render_bwrap_blob(const struct render_bwrap_result *r, char **buf,
    size_t *len, sbox_error *err);
/* Free what render_bwrap filled (and zero it). */
void render_bwrap_free(struct render_bwrap_result *r);

#endif
