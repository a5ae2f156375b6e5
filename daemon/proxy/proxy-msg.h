/* proxy-msg.h: the messages between sboxd and its proxy process: one JSON
 * object per datagram of a SOCK_SEQPACKET socketpair, with descriptors
 * (listening sockets) passed alongside as SCM_RIGHTS. Every message is
 * bounded (PROXY_MSG_MAX bytes, PROXY_MSG_FDS descriptors) and is an object
 * with a string member "type" naming its kind (protocol/channel.h: the
 * format both of sboxd's channels speak); the reader checks both and
 * drops (and closes the descriptors of) anything else. Each side takes
 * what it receives through its one table (channel_dispatch): sboxd's in
 * proxy-proc.c, the proxy's in proxy-main.c.
 *
 * sboxd -> proxy:  session {id, session, profile, net, max_conns} + fds,
 *                  allow {id, host}, local {id, port} + fd, close {id},
 *                  noted {id, serial} (a refusal is recorded: answer now),
 *                  hosts {id, serial, addrs[]} (the hosts file's answer)
 * proxy -> sboxd:  refused {id, serial, host, port, reason, rule},
 *                  failed {id, host, port, cause} (an allowed host could
 *                  not be reached), hosts? {id, serial, name},
 *                  count {id, n}, error {id, message} (also: a message of
 *                  sboxd's the proxy's table refused) */
#ifndef SBOX_PROXY_MSG_H
#define SBOX_PROXY_MSG_H

#include <stddef.h>
#include <jansson.h>

#define PROXY_MSG_MAX (128 * 1024)  /* bytes of one message */
#define PROXY_MSG_FDS 4             /* descriptors with one message */

/* Send obj (not consumed) and nfds descriptors (not closed) on fd;
 * 0, or -1 with errno. */
int proxy_msg_send(int fd, const json_t *obj, const int *fds, int nfds);
/* Receive one message: 1 with *obj (the caller's) and fds[0..*nfds),
 * 0 at end of stream, -1 with errno (EAGAIN: nothing now; EBADMSG: a
 * malformed message, dropped with its descriptors). */
int proxy_msg_recv(int fd, json_t **obj, int *fds, int *nfds);

#endif
