/* render-bwrap.h: a plan as bubblewrap arguments (for `bwrap --args FD`).
 *
 * Protected paths that do not exist on the host (plan_mount.missing) inside a
 * writable bind get no mount and nothing on the host (no placeholder: host
 * `git status` and `git add -A` see nothing of sbox's): sbox-init's file
 * guard refuses their creation (plan->guard->missing and the protected
 * names). Every folder between a writable bind and an existing protected
 * path is bound over itself, so that renaming a parent (mv .git .git2;
 * mkdir .git) fails with EBUSY. */
#ifndef SBOX_RENDER_BWRAP_H
#define SBOX_RENDER_BWRAP_H

#include <stddef.h>
#include "policy/plan.h"
#include "protocol/error.h"

/* Where sbox-init appears inside the sandbox. */
#define RENDER_BWRAP_INIT_PATH "/.sbox/init"
/* A short link to sbox-init: the exclusion shim (daemon/init/init-exclude.c)
 * takes the place of a program's path, so it must be short. */
#define RENDER_BWRAP_SHIM_PATH "/.x"
/* The proxy port sbox-init listens on (127.0.0.1 and ::1) by default. */
#define RENDER_BWRAP_PROXY_PORT 3128

struct render_bwrap_opts {
	const char *init_path;     /* host path of sbox-init (required) */
	int         ctl_fd;        /* control socket fd number as bwrap sees it */
	int         seccomp_fd;    /* fd bwrap reads the BPF program from, -1 none */
	int         proxy_port;    /* 0 = RENDER_BWRAP_PROXY_PORT */
	const char *hide_file_src; /* covers hidden files; NULL = /dev/null (an
	                              open of it then fails: nodev mount) */
	const char *standin_stage; /* the hidden areas as stand-ins mounted
	                              under this folder before bwrap runs
	                              (result's standins); NULL: tmpfs and
	                              /dev/null as before */
};

/* A hidden area served by stand-ins (the launcher mounts them under the
 * stage: the stand-ins' file system at STAGE/f, where this area is aN, and
 * for an overlay its upper tmpfs at STAGE/uN, the overlay at STAGE/oN). */
struct render_bwrap_standin {
	char              *path;        /* the host path it stands for */
	int                is_dir;
	int                overlay;     /* a writable folder (the home, /run:
	                                   a tmpfs upper layer) or a hidden
	                                   folder (sealed read-only); 0: a
	                                   hidden file bound read-only */
	int                report_root; /* a listing of it is reported */
	int                open_err;    /* an open of a file in it gets */
	unsigned           mode;        /* the overlay's root */
	unsigned long long size_bytes;  /* its upper tmpfs */
};

struct render_bwrap_result {
	char  **argv;  /* NULL-terminated bwrap options, for --args (bwrap
	                  ignores a command given there) */
	size_t  argc;
	char  **cmd;   /* NULL-terminated command to put after
	                  `bwrap --args FD --`: sbox-init and its arguments */
	size_t  cmdc;
	struct render_bwrap_standin *standins; /* with opts' standin_stage */
	size_t  n_standins;
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
