/* proxy-local.h: the addresses of this computer's interfaces, kept current
 * through a netlink socket (RTMGRP_IPV4_IFADDR / RTMGRP_IPV6_IFADDR) read
 * from the event loop. The proxy refuses them, and every address on a
 * network directly attached to an interface, in every network mode, unless
 * the name is in private_hosts. */
#ifndef SBOX_PROXY_LOCAL_H
#define SBOX_PROXY_LOCAL_H

#include <stddef.h>

#include "daemon/proxy/proxy-addr.h"
#include "protocol/error.h"

struct event_base;

#define PROXY_LOCAL_MAX 4096   /* interface addresses kept (more: fail closed) */

/* Read the interfaces' addresses and watch for changes; -1 with err when
 * netlink is unavailable (the addresses are then read once, getifaddrs). */
int proxy_local_start(struct event_base *base, sbox_error *err);
/* Stop watching and forget the addresses. */
void proxy_local_stop(void);
/* Why a must be refused as this computer's (or a directly attached
 * network's), or NULL. */
const char *proxy_local_check(const struct proxy_addr *a);
/* Replace the table (tests). */
void proxy_local_set(const struct proxy_addr_net *nets, size_t n);

#endif
