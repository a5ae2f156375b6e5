/* client.h: the sbox CLI's connection to sboxd and its shared helpers. */
#ifndef SBOX_CLIENT_H
#define SBOX_CLIENT_H

#include <jansson.h>
#include "protocol/error.h"

/* Exit codes of sbox. */
#define EXIT_OK          0
#define EXIT_FAILED      1
#define EXIT_USAGE       2
#define EXIT_DENIED      77
#define EXIT_UNAVAILABLE 69

/* Options every command sees. */
struct client_opts {
	const char *socket;   /* --socket / SBOX_SOCKET, or NULL = default */
	int         json;     /* --json */
	int         no_start; /* --no-start */
};

struct client;

/* Called for each notification that arrives while waiting; return nonzero
 * to stop waiting (client_wait returns then). */
typedef int (*client_notify_cb)(const char *method, json_t *params, void *arg);

/* Connect (starting sboxd when allowed) and say hello; NULL with err
 * (sbox.Unavailable-style errors get exit code 69). */
struct client *client_connect(const struct client_opts *o, sbox_error *err);
/* Close the connection. */
void client_close(struct client *cl);
/* Call a method and wait for its reply (notifications meanwhile go to the
 * notify callback); steals params; fds (may be NULL) are passed with the
 * request. Returns the result (caller owns) or NULL with err. */
json_t *client_call(struct client *cl, const char *method, json_t *params,
    const int *fds, int nfds, sbox_error *err);
/* Send a request without waiting; returns its id, or -1. */
long long client_send(struct client *cl, const char *method, json_t *params,
    const int *fds, int nfds, sbox_error *err);
/* Wait for the reply to id (notifications go to the callback meanwhile). */
json_t *client_wait_reply(struct client *cl, long long id, sbox_error *err);
/* Send a notification (no reply). */
int client_notify(struct client *cl, const char *method, json_t *params,
    sbox_error *err);
/* Set the function notifications go to. */
void client_on_notify(struct client *cl, client_notify_cb cb, void *arg);
/* Wait for notifications until the callback says stop or the daemon goes;
 * returns 0 when stopped by the callback, -1 with err otherwise. */
int client_wait(struct client *cl, sbox_error *err);
/* The socket's fd (for poll loops). */
int client_fd(const struct client *cl);
/* Read whatever is available without blocking and dispatch it; -1 on EOF. */
int client_pump(struct client *cl, sbox_error *err);

/* The reply to id if it has arrived (NULL otherwise; on an error reply,
 * NULL with err set). */
json_t *client_try_reply(struct client *cl, long long id, sbox_error *err);

/* exec.c: run a command.exec request with the terminal's stdio and wait. */
json_t *exec_with_terminal(struct client *cl, json_t *params, sbox_error *err);
/* The same for another method that runs a command (command.run_outside). */
json_t *exec_call_with_terminal(struct client *cl, const char *method,
    json_t *params, sbox_error *err);
/* The exit status for a command result: its code, or 128+signal. */
int exec_status(const json_t *result);
/* Print what the sandbox refused during the command. */
void exec_print_blocked(const json_t *result);


/* errors.c: the one place errors become text and an exit code. */
int client_fail(const sbox_error *err);
/* Print a usage error for a command and return EXIT_USAGE. */
int client_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a JSON value (for --json), pretty, on stdout. */
void client_print_json(const json_t *v);

/* A command of the CLI. */
struct client_cmd {
	const char *name;      /* "session", "daemon", "version", ... */
	int (*fn)(const struct client_opts *o, int argc, char **argv);
	const char *usage;     /* one or more lines */
	const char *summary;
};

/* Command groups (one file each). */
int cmd_version(const struct client_opts *o, int argc, char **argv);
int cmd_daemon(const struct client_opts *o, int argc, char **argv);
int cmd_events(const struct client_opts *o, int argc, char **argv);
int cmd_session(const struct client_opts *o, int argc, char **argv);
int cmd_run(const struct client_opts *o, int argc, char **argv);
int cmd_approvals(const struct client_opts *o, int argc, char **argv);
int cmd_approve(const struct client_opts *o, int argc, char **argv);
int cmd_deny(const struct client_opts *o, int argc, char **argv);
int cmd_audit(const struct client_opts *o, int argc, char **argv);
int cmd_sandbox(const struct client_opts *o, int argc, char **argv);

/* cmd-choices.c: sbox session status ID, sbox session choices [...], and
 * sbox session send ID --sandbox P --stdin. */
int cmd_choices_status(const struct client_opts *o, int argc, char **argv);
int cmd_choices_choices(const struct client_opts *o, int argc, char **argv);
int cmd_choices_send(const struct client_opts *o, int argc, char **argv);

/* cmd-outside.c: sbox session outside|log, and text helpers for what an
 * agent wrote (argv, reasons: control characters are shown escaped). */
int cmd_outside_run(const struct client_opts *o, int argc, char **argv);
int cmd_outside_log(const struct client_opts *o, int argc, char **argv);
/* argv as one shell-like line (quoted where needed); caller frees. */
char *cmd_outside_argv_text(const json_t *argv);
/* A string with control and direction-changing characters escaped;
 * caller frees. */
char *cmd_outside_text(const char *s);
/* A store time (NAME_at_ms of a record) as local "YYYY-MM-DD HH:MM:SS". */
void cmd_outside_time(const json_t *rec, const char *key, char *buf,
    size_t len);

#endif
