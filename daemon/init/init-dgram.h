/* init-dgram.h: datagrams and messages sent (init-dgram.c). */
#ifndef SBOX_INIT_DGRAM_H
#define SBOX_INIT_DGRAM_H

#include "daemon/init/init-types.h"

/* init-dgram.c: sendto, sendmsg, sendmmsg, performed here on a copy of the
 * caller's socket with the address, data and descriptors read once; a
 * datagram to a Unix path reaches only a socket the sandbox bound through
 * the guard. 0 (the count in call->val) or an errno, SV_ANSWERED or
 * SV_UNDECIDED. */
int init_dgram_call(struct init_sv_call *call, struct init_walk_caller *t);

#endif
