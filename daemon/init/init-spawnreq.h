/* init-spawnreq.h: a spawn message, parsed and checked. */
#ifndef SBOX_INIT_SPAWNREQ_H
#define SBOX_INIT_SPAWNREQ_H

#include <jansson.h>
#include <sys/resource.h>

#include "protocol/ttysize.h"

#define INIT_ID_MAX ((json_int_t)1 << 53)

/* The rlimits a spawn message may set. */
#define INIT_NRLIMITS 5

/* A parsed, validated spawn message. */
struct init_spawnreq {
	json_t     *id;
	json_int_t  idv;
	char      **argv;
	char      **env;
	const char *cwd;
	int         use_fds;
	int         tty;         /* a terminal of the container's devpts */
	struct ttysize size;
	int         channel;     /* a 4th descriptor (the only one with a
	                            terminal) becomes fd 3 (sbox channel) */
	long long   timeout_ms;
	int         kill_group;
	int         nlimits;
	int         lim_res[INIT_NRLIMITS];
	rlim_t      lim_val[INIT_NRLIMITS];
};

/* Check a spawn message that came with nfds descriptors; fills r (its
 * strings point into msg; free r->argv and r->env) or returns a reason.
 * Whether the id is free is the caller's to check. */
const char *init_spawnreq_parse(json_t *msg, int nfds, struct init_spawnreq *r);

#endif
