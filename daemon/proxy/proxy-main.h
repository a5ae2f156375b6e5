/* proxy-main.h: the proxy process: forked by sboxd (daemon/proxy/proxy-proc.c),
 * it confines itself (daemon/proxy/proxy-jail.c), then runs the proxies of every
 * session (daemon/proxy/proxy.c) on its own event loop, told what to do over the
 * socketpair (daemon/proxy/proxy-msg.h). */
#ifndef SBOX_PROXY_MAIN_H
#define SBOX_PROXY_MAIN_H

#include <sys/types.h>

struct proxy_jail;

/* Run the proxy process on sock (its end of the socketpair) with the
 * confinement jail describes; never returns. */
void proxy_main_run(int sock, const struct proxy_jail *jail)
    __attribute__((noreturn));

#endif
