/* proxy-main.h: the proxy process: forked by sboxd (daemon/proxy/proxy-proc.c),
 * which runs its own binary again in it (a fresh address space: none of
 * sboxd's memory, sessions, database or environment), it confines itself (daemon/proxy/proxy-jail.c), then runs the proxies of every
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

/* The variable that tells sboxd's binary it runs as the proxy process:
 * "FD:UID:GID:RUN_UID:RUN_GID:GLOBAL_LIMIT:LOG_LEVEL". */
#define PROXY_MAIN_ENV "SBOX_PROXY_CHILD"

/* When sboxd's binary was run again as the proxy process (PROXY_MAIN_ENV
 * set): take what sboxd passed and run it (never returns); otherwise
 * return at once. */
void proxy_main_child(void);

#endif
