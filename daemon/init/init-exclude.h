/* init-exclude.h: programs matching `exclude`, sent outside
 * (init-exclude.c). */
#ifndef SBOX_INIT_EXCLUDE_H
#define SBOX_INIT_EXCLUDE_H

#include <jansson.h>
#include <poll.h>
#include <sys/types.h>
#include "daemon/init/init-types.h"

/* init-exclude.c: programs matching `exclude`, sent outside. */
/* Fill pfd[] with the shims' sockets; returns how many (<= max). */
int init_exclude_pollfds(struct pollfd *pfd, int max);
/* Handle what poll reported on them. */
void init_exclude_events(struct pollfd *pfd, int n);
/* exclude_done {xid, code, message} from sboxd. */
void init_exclude_done(json_t *msg);
/* sbox-init started as the shim (not pid 1): its exit status. */
int init_exclude_shim(const char *self);
/* init-exclude.c: an execve or execveat; answers the call itself. */
void init_exclude_exec(struct init_sv_call *call);

/* The shim's hello through the guard's sendmsg (init-exclude.c): -1 when
 * sock is not a shim's socket; else 0 or EPERM. */
int init_exclude_hello_from(int sock, pid_t tid, const char *data,
    size_t len, const int *fds, int nfds);

#endif
