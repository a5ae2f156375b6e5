/* init-supervise.h: what init-supervise.c (the listeners and the loop) and
 * init-supervise-ops.c (path walking and the operations) share. */
#ifndef SBOX_INIT_SUPERVISE_H
#define SBOX_INIT_SUPERVISE_H

#include <jansson.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/guard.h"

/* The notified calls. */
enum {
	SV_OPEN, SV_OPENAT, SV_CREAT, SV_MKDIR, SV_MKDIRAT, SV_MKNOD,
	SV_MKNODAT, SV_RENAME, SV_RENAMEAT, SV_RENAMEAT2, SV_LINK, SV_LINKAT,
	SV_SYMLINK, SV_SYMLINKAT, SV_TRUNCATE, SV_TRUNCATE64, SV_CHMOD,
	SV_FCHMOD, SV_FCHMODAT, SV_FCHMODAT2,
};

/* One notification being handled. */
struct init_sv_call {
	int                        sc;       /* SV_* */
	pid_t                      tid;      /* the calling thread */
	json_int_t                 id;       /* the command (spawn id) */
	uint64_t                   notif_id;
	int                        lfd;      /* its listener */
	const struct seccomp_data *data;
	int                        cloexec;  /* out: the opened fd's O_CLOEXEC */
};

/* The guard spec, or NULL before the guard message. */
const struct guard_spec *init_supervise_spec(void);
/* Report a refusal to sboxd (rate-limited, repeats dropped); rule "" for
 * a refusal by the kernel (a read-only mount) that sboxd explains. */
void init_supervise_report(json_int_t id, pid_t pid, const char *op,
    const char *path, int err, const char *rule, const char *reason);

/* init_supervise_call's answer when a helper answers the call itself. */
#define SV_ANSWERED 1001

/* init-supervise-ops.c: set up (NULL or a reason). */
const char *init_supervise_ops_init(void);
/* Perform one notified call for its caller: returns 0 or an errno; an
 * opened file is returned in *fd (then the answer is that fd). */
int init_supervise_call(struct init_sv_call *call, int *fd);

#endif
