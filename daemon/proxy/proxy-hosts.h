/* proxy-hosts.h: the proxy's reading of the hosts file (/etc/hosts, or
 * $SBOX_HOSTS_FILE when sboxd starts): read again whenever it changes
 * (its device, inode, size or modification time), so a name added later
 * resolves without restarting sboxd. evdns is set up without it. */
#ifndef SBOX_PROXY_HOSTS_H
#define SBOX_PROXY_HOSTS_H

#include <stddef.h>

#include "daemon/proxy/proxy-addr.h"

#define PROXY_HOSTS_FILE "/etc/hosts"

/* The hosts file sboxd reads. */
const char *proxy_hosts_file(void);
/* The addresses the hosts file gives name (case-insensitive), at most max,
 * in file order: how many (0: not in the file). */
size_t proxy_hosts_lookup(const char *name, struct proxy_addr *out,
    size_t max);
/* Forget what was read (daemon shutdown). */
void proxy_hosts_free(void);

#endif
