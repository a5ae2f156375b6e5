/* command.h: one command of a session: started in the session's container
 * (or on the host for an unsandboxed session and for approved runs outside
 * the sandbox), its stdio, output, limits, result and waiters. What the
 * rooms above use; the command itself is in command-state.h, and the files
 * under command.c declare their own functions (command-io.h, ...). */
#ifndef SBOX_COMMAND_H
#define SBOX_COMMAND_H

#include "daemon/command/command-state.h"
#include "daemon/command/command-blocked.h"
#include "daemon/command/command-env.h"
#include "daemon/command/command-follow.h"
#include "daemon/command/command-io.h"
#include "daemon/command/command-tty.h"

/* Start a command. Detached: *result at once. Otherwise RPC_LATER: the call
 * is answered with the result when the command ends. */
int command_start(const struct command_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err);
/* The stdio mode and timeout (ms) a command request names. */
int command_parse_request(json_t *params, enum command_stdio *stdio,
    long long *timeout_ms, sbox_error *err);
/* Find a command by id (E_COMMAND_NOT_FOUND). */
struct command *command_find(long long id, sbox_error *err);
/* command.wait: *result now if done, else RPC_LATER. */
int command_wait(struct command *c, struct rpc_call *call, json_t **result,
    sbox_error *err);
/* Signal a running command's process group. */
int command_kill(struct command *c, int sig, sbox_error *err);
/* rpc cancel callback of command.exec: the client went away or cancelled:
 * kill the command (again from a timer until the kill is sent;
 * command-cancel.c). */
void command_cancel_cb(struct rpc_call *call, void *arg);
/* Write to a pipes-mode command's stdin (or its terminal); eof closes it. */
int command_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err);
/* The session is closing: its commands end (killed), waiters are answered,
 * and every command object is freed. */
void command_session_closed(struct session *s);
/* The file guard refused an operation of the command with container id
 * ct_id (0: every running command of the session): note it once in its
 * blocked.files {path, op, rule, message, reason, pid, process}. */
void command_note_file(struct session *s, uint64_t ct_id, const char *path,
    const char *op, const char *rule, const char *message,
    const char *reason, int pid, const char *process);
/* A host was refused for a session: note it on its running commands;
 * returns the command id when exactly one was running, else 0. */
long long command_note_refusal(struct session *s, const char *host,
    int port, const char *rule, const char *reason);
/* command-session.c: the number of running commands of session s. */
int command_session_running(const struct session *s);
/* command-session.c: the database was re-created: insert the commands of
 * session s again; adds those written to *written, returns how many failed
 * (err: the last failure). */
int command_session_rewrite(struct session *s, int *written, sbox_error *err);
/* command-session.c: the disk guard found root full: kill the running
 * commands (inside a sandbox) of the sessions that bind it. */
void command_session_stop_writers(const char *root);
/* command-session.c: what the rooms below tell on the event bus
 * (daemon/hooks.h), subscribed in main_wire (events_on); each is an
 * events_fn. session.closing: the session's approvals end, then its
 * commands. */
void command_session_on_closing(const char *topic, const char *session,
    const json_t *data, void *arg);
/* session.host_failed {host, port, cause}: noted on its commands. */
void command_session_on_host_failed(const char *topic, const char *session,
    const json_t *data, void *arg);
/* session.file_refused {ct_id, path, op, rule, message, reason, pid,
 * process}: noted on the command. */
void command_session_on_file_refused(const char *topic, const char *session,
    const json_t *data, void *arg);
/* disk.root_full {root}: command_session_stop_writers. */
void command_session_on_root_full(const char *topic, const char *session,
    const json_t *data, void *arg);

#endif
