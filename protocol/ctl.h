/* ctl.h: the control channel between sboxd and sbox-init.
 *
 * A SOCK_SEQPACKET socketpair; each message is one JSON object (at most
 * CTL_MSG_MAX bytes) with an optional set of file descriptors (SCM_RIGHTS).
 * Every message has a "type": the format of protocol/channel.h, which the
 * proxy's channel speaks too. Both ends treat what they receive as
 * untrusted: sbox-init shares its uid with the sandboxed processes. Each end
 * takes what it receives through its one table (channel_dispatch: the
 * name, the handler, the sender, the descriptors, the fields checked
 * before the handler; anything else refused there): sbox-init's in
 * daemon/init/init-main.c (a refusal answered with error {req}), sboxd's
 * in daemon/container/container-req.c (a refusal ends the sandbox).
 *
 * sboxd -> sbox-init
 *   spawn  {id, argv[], env[], cwd, stdio:"fds"|"tty"|"none", tty?{rows,
 *           cols}, channel?, timeout_ms?, kill_group?, limits?{nofile,
 *           fsize, as, nproc, core}}
 *          + 3 fds (stdin, stdout, stderr) when stdio is "fds", then the
 *          channel's fd when channel is true. "tty": sbox-init makes a pty
 *          pair in the container's devpts sized tty {rows, cols} (1..4096);
 *          the slave is the command's controlling terminal and stdio.
 *          Replies: spawned {id, pid} (+ the pty's master with "tty") or
 *          error {req:id, errno, message}; later exit {id, code, signal,
 *          timed_out}.
 *   kill   {id, signal}                 the command's whole process group.
 *   open   {req, path, flags[], mode?}  flags: "read" "write" "create" "excl"
 *          "trunc" "append" "dir" "path" "nofollow".
 *          Reply: opened {req} + 1 fd, or error {req, errno, message}.
 *   mkdir  {req, path, mode?}           Reply: done {req} or error.
 *   stat   {req, path, nofollow?}       Reply: done {req, stat{type, size,
 *          mode, uid, gid, mtime, mtime_ns, nlink, ino, dev}} or error.
 *   listen_local {req, port}            Reply: opened {req, families[]} +
 *          a listening TCP socket on 127.0.0.1:port (and ::1:port).
 *   guard  {roots[], home, bulk: [n1, n2], missing[], supervise,
 *          exclude[]?, nosock[]?, filter?: {exclude, reads, notify: n3,
 *          seal: n4}} + 1 fd, a memfd of n1 + n2 (+ n3 + n4) bytes: the
 *          protected names' lines ("KIND SCOPE NAME COMMENT\n"...), the
 *          rules as NUL-terminated strings (path, access hidden|ro|rw,
 *          rule for each), then the BPF of the notify filter and of its
 *          seal, which sboxd built for a spec with (or without) an
 *          `exclude` list and hidden rules (policy/guard-filter.c; jansson
 *          would parse these bytes as JSON strings at ~20 ns each). Sent
 *          once, with bwrap's start (sbox-init reads it after it has sent
 *          ready): the file guard's spec (policy/guard.h). Reply, always
 *          after ready: guarded {supervise} or error {req: null}; no
 *          bulk, bytes that do not add up, or filters built for another
 *          kind of spec set no guard. Until it is set up, spawn is
 *          refused.
 *   guard_protect {missing[]}          more protected paths (what git's
 *          config names changed since): added to the spec's missing ones
 *          before the next message is read. No reply; one that cannot be
 *          applied breaks the guard (every command refused after it).
 *   exclude_done {xid, code, message?}  how a program sent outside ended:
 *          the status its process inside exits with, a line for its
 *          stderr.
 *   told   {ticket, text?}              sboxd's words for the refused
 *          process of a report's ticket (init-tell.c); its held call is
 *          answered then.
 *   shutdown {}                         init kills everything and exits.
 *
 * sbox-init -> sboxd
 *   ready  {pid, proxy_port, families[]} + the proxy's listening sockets, in
 *          the order of families ("inet" = 127.0.0.1, "inet6" = ::1).
 *   spawned, exit, opened, done, error as above.
 *   refused {id, pid, process, op, path, errno, rule, reason, hidden,
 *          ticket}: the
 *          file guard refused an operation of command id (rule "" = the
 *          kernel refused a write the guard allowed, e.g. a read-only
 *          mount); hidden true: a hidden path refused a read (op "read",
 *          errno 0 for an opened stand-in) or the source of a rename or
 *          link: sboxd explains it itself; op "exec" with rule "exclude":
 *          a program matching `exclude` could not be sent outside. pid and
 *          process (its name) are the caller's process. Rate-limited.
 *   exclude {id, xid, pid, argv[], program, cwd, pattern} + 3 fds: a
 *          program of command id matched the guard's `exclude` patterns at
 *          its execve; the fds are its stdin, stdout and stderr. Answered
 *          with exclude_done {xid}.
 *   exclude_cancel {xid}: that program is gone before the answer.
 */
#ifndef SBOX_CTL_H
#define SBOX_CTL_H

#include <jansson.h>
#include "protocol/error.h"

/* Largest message in bytes. It stays below the default socket send buffer
 * (net.core.wmem_default, 208 KiB) that bounds one SEQPACKET message. */
#define CTL_MSG_MAX  (192 * 1024)
/* Most file descriptors one message carries. */
#define CTL_FDS_MAX  4

/* Limits sbox-init enforces on a spawn message. */
#define CTL_ARGV_MAX 4096   /* argv entries */
#define CTL_ENV_MAX  4096   /* env entries */
#define CTL_PATH_MAX 4096   /* bytes in a path */

/* ctl_recv results besides -1 (error). */
#define CTL_EOF   0
#define CTL_MSG   1
#define CTL_AGAIN 2

/* Send one message (msg is not stolen) with nfds descriptors (may be 0).
 * Never raises SIGPIPE. Returns 0 or -1 (E_IO; errno is kept). */
int ctl_send(int fd, json_t *msg, const int *fds, int nfds, sbox_error *err);
/* What waits to be sent on a non-blocking control socket, in order, so a
 * full socket (EAGAIN) is backpressure, never an error. Bounded: a message
 * beyond a bound is refused with E_LIMIT. Pure: the caller watches the
 * socket for writing while ctl_queue_send or _flush returned 1. */
#define CTL_QUEUE_MSGS  4096
#define CTL_QUEUE_BYTES (32 * 1024 * 1024)
#define CTL_QUEUE_FDS   2048
struct ctl_qmsg;
struct ctl_queue {
	struct ctl_qmsg *head, *tail;
	size_t           n, bytes, nfds;          /* waiting now */
	size_t           max_msgs, max_bytes, max_fds;
};
/* A new, empty queue with the default bounds (NULL on ENOMEM). */
struct ctl_queue *ctl_queue_new(void);
/* Send msg (not stolen) after what waits: 0 sent now, 1 queued with copies
 * of fds (the caller keeps its own), -1 with err (E_LIMIT: a bound is
 * reached; E_IO: the socket failed). */
int ctl_queue_send(struct ctl_queue *q, int fd, json_t *msg, const int *fds,
    int nfds, sbox_error *err);
/* Send what waits until the socket is full: 0 empty, 1 more waits, -1 on a
 * socket error (err). */
int ctl_queue_flush(struct ctl_queue *q, int fd, sbox_error *err);
/* Messages waiting. */
size_t ctl_queue_len(const struct ctl_queue *q);
/* Free q and its waiting messages (closing their descriptors). */
void ctl_queue_free(struct ctl_queue *q);
/* Receive one message: CTL_MSG with *msg (a new reference to a JSON object)
 * and fds[0..*nfds) (close-on-exec); CTL_EOF when the peer closed; CTL_AGAIN
 * on a non-blocking socket with nothing to read; -1 on an error (a
 * truncated, oversized or non-object message: E_INVALID_REQUEST). Any
 * descriptor beyond maxfds is closed and makes it an error. */
int ctl_recv(int fd, json_t **msg, int *fds, int *nfds, int maxfds,
    sbox_error *err);
/* The text of the message the last ctl_recv of this process returned
 * (valid until the next ctl_recv), or NULL: to pass it on as it came. */
const char *ctl_recv_text(size_t *len);
/* Send text (a message as ctl_recv_text gave it) with nfds descriptors:
 * 0, or -1 (E_IO; errno is kept). */
int ctl_send_text(int fd, const char *text, size_t len, const int *fds,
    int nfds, sbox_error *err);
/* Build {"type": type} plus the fields of a json_pack format (may be NULL). */
json_t *ctl_msg(const char *type, const char *fmt, ...);
/* The "type" of a message, or "" when it has none. */
const char *ctl_type(json_t *msg);
/* Close fds[0..n) and set them to -1. */
void ctl_close_fds(int *fds, int n);

#endif
