/* proxy-proc.h: sboxd's side of the proxy process. sboxd forks one proxy
 * process at start (daemon/proxy/proxy-main.c, confined by daemon/proxy/proxy-jail.c)
 * and speaks to it over a socketpair (daemon/proxy/proxy-msg.h): each session's
 * listening sockets and network plan go to it; its refusals come back and
 * are recorded here (the session's refusal callback), and it asks sboxd for
 * the hosts file's answers (sboxd reads the file; the process has no files).
 * sboxd keeps its own copy of every listening socket: when the process
 * dies, sboxd logs it, starts another and sends every live session again;
 * connections that were open are closed (their clients see it), new ones
 * work once it runs. Everything the process sends is checked and bounded. */
#ifndef SBOX_PROXY_PROC_H
#define SBOX_PROXY_PROC_H

#include <sys/types.h>

#include "daemon/proxy/proxy.h"
#include "protocol/error.h"

struct event_base;
struct proxy_handle;

/* Fork the proxy process (one per daemon); -1 with err. */
int proxy_proc_start(struct event_base *base, sbox_error *err);
/* End the proxy process and forget every session (shutdown). */
void proxy_proc_stop(void);
/* The proxy process's pid, or 0 while none runs. */
pid_t proxy_proc_pid(void);
/* A session's proxy in the process: cfg's listen fds are kept (and closed
 * by proxy_proc_free), cfg->net copied into the message, on_refusal and arg
 * called for each refusal. NULL with err. */
struct proxy_handle *proxy_proc_new(const struct proxy_config *cfg,
    sbox_error *err);
/* The session ended: its proxy closes its listeners and connections. */
void proxy_proc_free(struct proxy_handle *h);
/* Allow one more host pattern (session.allow_host); -1 with err. */
int proxy_proc_allow_host(struct proxy_handle *h, const char *host,
    sbox_error *err);
/* Forward connections on listen_fd to 127.0.0.1:port (kept; see above). */
int proxy_proc_add_local_forward(struct proxy_handle *h, int listen_fd,
    int port, sbox_error *err);
/* Live client connections of the session's proxy (as last reported). */
int proxy_proc_connections(const struct proxy_handle *h);
/* Was host:port allowed by proxy_proc_allow_host (after the session began)? */
int proxy_proc_allowed_later(const struct proxy_handle *h, const char *host,
    int port);

#endif
