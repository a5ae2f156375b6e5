/* client.h: the sbox CLI's connection to sboxd and its shared helpers. */
#ifndef SBOX_CLIENT_H
#define SBOX_CLIENT_H

#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include "protocol/error.h"
#include "client/ttyfilter.h"

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
	int         no_ask;   /* --no-ask of exec, run, send: never ask */
	int         one_shot; /* the session closes after this command (run,
	                         send --sandbox): no advice names it */
	int         tty;      /* exec on a terminal of the sandbox: 0 no, 1
	                         when stdin and stdout are terminals (session
	                         exec's default), 2 always (-t; an error
	                         without a terminal) */
	int         osc;      /* what the sandbox writes to our terminal: 0
	                         as the config says ("terminal": {"drop_osc"},
	                         default true), 1 drop the sequences that act
	                         on our machine (--drop-osc), 2 keep them
	                         (--keep-osc) */
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
/* Connect, call one method and disconnect; NULL after printing the error
 * (*rc gets the exit code). params is consumed. */
json_t *client_call_once(const struct client_opts *o, const char *method,
    json_t *params, int *rc);
/* Keep the next request (without fds) to go out with the one after it,
 * in one write; anything that reads or polls the socket sends it first. */
void client_hold_next(struct client *cl);
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
int client_fd(struct client *cl);
/* Read whatever is available without blocking and dispatch it; -1 on EOF. */
int client_pump(struct client *cl, sbox_error *err);

/* The reply to id if it has arrived (NULL otherwise; on an error reply,
 * NULL with err set). */
json_t *client_try_reply(struct client *cl, long long id, sbox_error *err);
/* Wait up to ms for the answer to request id: 1 when it came (*r set) or
 * err was set, 0 when it did not come yet, -1 on error. */
int client_wait_step(struct client *cl, long long id, int ms, json_t **r,
    sbox_error *err);

/* exec.c: run a command.exec request with the terminal's stdio and wait. */
json_t *exec_with_terminal(struct client *cl, json_t *params, sbox_error *err);
/* The same for another method that runs a command (command.run_outside). */
json_t *exec_call_with_terminal(struct client *cl, const char *method,
    json_t *params, sbox_error *err);
/* Called once by the next exec_with_terminal right after its request went
 * out, before it waits (an answer asked for with it is read there). */
void exec_after_send(void (*cb)(struct client *, void *), void *arg);
/* The exit status for a command result: its code, or 128+signal. */
int exec_status(const json_t *result);
/* Was the last command run with the terminal stopped by a signal to sbox? */
int exec_was_interrupted(void);
/* Note that it was (sig) or not (0). */
void exec_note_interrupted(int sig);

/* exec-relay.c: our stdin, stdout and stderr that may not go into a
 * sandbox (a terminal, a device) go through pipes that sbox copies. */
struct exec_relay {
	int pass[3];            /* what to pass with the request */
	int mine[3];            /* our end of each pipe; -1: passed as is */
	char in[4096];          /* typed bytes not yet in the stdin pipe */
	size_t inoff, inlen;
	int in_eof;
	int sigpipe_saved;
	struct sigaction old_pipe;
	int filtered;           /* stdout and stderr go through filt */
	struct ttyfilter filt[3];
};
/* Filter what the next relays copy to our stdout and stderr through
 * ttyfilter.c when they are relayed (a terminal) and o, the config or the
 * default says so. */
void exec_relay_filter(const struct client_opts *o, struct client *cl);
/* Make the pipes (SIGPIPE ignored until the close); -1 with err. */
int exec_relay_open(struct exec_relay *r, sbox_error *err);
/* The request went out: close our copies of the sandbox's ends. */
void exec_relay_sent(struct exec_relay *r);
/* The fds to poll (at most 3 into p); how many. */
int exec_relay_pollfds(struct exec_relay *r, struct pollfd *p);
/* Copy what poll said is ready. */
void exec_relay_step(struct exec_relay *r, const struct pollfd *p, int n);
/* Copy what is left of the output and close everything. */
void exec_relay_close(struct exec_relay *r);

/* ttyshow.c: what a sandbox made, written to our stdout and stderr. */
struct ttyshow {
	int              filtered[2];   /* stdout, stderr through f */
	struct ttyfilter f[2];
};
/* Start: each of stdout and stderr filtered when drop and a terminal. */
void ttyshow_init(struct ttyshow *t, int drop);
/* Write p to stdout (i 0) or stderr (i 1). */
void ttyshow_write(struct ttyshow *t, int i, const unsigned char *p,
    size_t n);
/* The end: an unfinished sequence held is dropped. */
void ttyshow_end(struct ttyshow *t);

/* exec-tty.c: a command on a terminal of its sandbox, with ours. */
/* Are stdin and stdout terminals? */
int exec_tty_possible(void);
/* Are the sequences that act on our machine dropped (o->osc, the config,
 * else yes)? */
int exec_tty_drops(const struct client_opts *o, struct client *cl);
/* Run a command.exec request on a terminal of the sandbox (our terminal
 * raw meanwhile, our window size followed; o->osc: what it shows goes
 * through ttyfilter.c); the result or NULL with err. */
json_t *exec_tty_run(const struct client_opts *o, struct client *cl,
    json_t *params, sbox_error *err);
/* exec-live.c: refusals shown while a command runs on a terminal. */
/* Explain the next command's refusals with this session record. */
void exec_live_set(const json_t *info, int one_shot);
/* A command.blocked notification: print its entries at once. */
void exec_live_blocked(const json_t *params);
/* Mark in a result what was shown live (exec_print_blocked skips it). */
void exec_live_mark(json_t *r);
/* Print what the sandbox refused during the command (its explanations). */
void exec_print_blocked(const json_t *result);
/* Add to each blocked entry of a result an "explanation": what was refused,
 * by which rule, and what a person can do (info: the session record). */
void exec_explain_blocked(json_t *result, const json_t *info, int one_shot);

/* ask.c: at a terminal, after the sandbox refused a host or a file write,
 * ask the person (allow the host and run again; run outside). */
/* Keep a copy of stdin when it is a terminal (before send replaces it). */
void ask_keep_terminal(void);
/* May sbox ask: stdin and stdout terminals, no --no-ask or --json, not a
 * client inside a sandbox? */
int ask_possible(const struct client_opts *o);
/* Ask about what result was refused (params: a copy of the command.exec
 * request, info: the session record); returns the exit status. */
int ask_after(const struct client_opts *o, struct client *cl,
    const json_t *params, const json_t *result, const json_t *info,
    int status);
/* Ask sboxd to run req (command.run_outside params, taken) outside the
 * sandbox with this terminal's stdio and the person's umask; at a terminal
 * the person here answers it (*declined: they said no). */
json_t *ask_outside_call(const struct client_opts *o, struct client *cl,
    json_t *req, int *declined, sbox_error *err);


/* text.c: the one way to print text a sandbox or a client chose: control
 * characters, escape sequences, bidi, separators, zero-width characters
 * and bytes that are not UTF-8 come out escaped (\x1b, \u202e). */
/* Is code point cp unsafe on a terminal? */
int text_is_unsafe(long cp);
/* n bytes of s made safe (caller frees); NULL on ENOMEM. */
char *text_safen(const char *s, size_t n);
/* s made safe (caller frees). */
char *text_safe(const char *s);
/* s made safe for one printf: valid for the next 16 calls (NULL: NULL). */
const char *text_show(const char *s);
/* A string member of o made safe (dflt when it has none). */
const char *text_member(const json_t *o, const char *key, const char *dflt);

/* errors.c: the one place errors become text and an exit code (with
 * --json also a JSON document on stdout). */
int client_fail(const sbox_error *err);
/* Print a usage error as one line (with "try 'sbox help CMD'") and return
 * EXIT_USAGE. */
int client_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Name the command being run, for usage errors. */
void client_usage_cmd(const char *cmd, const char *sub);
/* Print "sbox: warning: ..." on stderr. */
void client_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the "warnings" array of an answer, one warning line each. */
void client_print_warnings(const json_t *r);
/* Say whether --json was given. */
void client_set_json(int on);
/* Has a JSON document gone to stdout yet? */
int client_json_printed(void);
/* Print a JSON value (for --json), pretty, on stdout; only the first call
 * of a run prints (stdout holds one document). */
void client_print_json(const json_t *v);

/* A command of the CLI. */
struct client_cmd {
	const char *name;      /* "session", "daemon", "version", ... */
	int (*fn)(const struct client_opts *o, int argc, char **argv);
};

/* table.c: every command and subcommand, its usage and options. */
struct client_sub {
	const char *cmd;       /* "session" */
	const char *sub;       /* "create", or NULL without subcommands */
	const char *usage;     /* one or more lines */
	const char *summary;
	const char *opts;      /* "name" flags and "name=" with a value;
	                          "x/name" adds -x; --json, --help implicit */
	int         argv_at;   /* positionals before a command line (ARGV...)
	                          starts; -1: no command line */
};
/* The table (ends with a NULL cmd). */
const struct client_sub *table_all(void);
/* Is cmd a command? */
int table_is_cmd(const char *cmd);
/* The entry for cmd and sub. */
const struct client_sub *table_find(const char *cmd, const char *sub);
/* The closest command (cmd NULL) or subcommand of cmd to word, or NULL. */
const char *table_suggest(const char *cmd, const char *word);
/* The closest of names (NULL-terminated) to word, or NULL ("did you mean"). */
const char *table_closest(const char *word, const char *const *names);
/* Print the help of cmd (every subcommand when sub is NULL). */
void table_help(const char *cmd, const char *sub);
/* Before a command runs: 1 after printing --help, -1 after a usage error,
 * 0 to go on (--json taken out of argv into o->json). */
int table_prepare(struct client_opts *o, int *argcp, char **argv);
/* sbox completion bash. */
int table_completion(const struct client_opts *o, int argc, char **argv);

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
int cmd_command(const struct client_opts *o, int argc, char **argv);
/* cmd-follow.c: sbox command follow COMMAND (its exit status). */
int cmd_command_follow(const struct client_opts *o, long long command);
int cmd_config(const struct client_opts *o, int argc, char **argv);
/* cmd-run.c: did nothing in the config choose a profile for project (and
 * provider, or NULL)? Then sbox run and sbox agent use workspace. */
int cmd_run_is_default(struct client *cl, const char *project,
    const char *provider);
/* cmd-shell.c: sbox shell, the program an agent takes as its shell. */
int cmd_shell(const struct client_opts *o, int argc, char **argv);
/* Is sbox run by a shell's name (a link sbox-bash, sbox-shell or bash)? */
int cmd_shell_is_argv0(const char *argv0);
/* cmd-agent.c: sbox agent claude|codex|gemini [ARGS...]: the agent's CLI
 * on this computer, its shell commands in a session of its own. */
int cmd_agent(const struct client_opts *o, int argc, char **argv);

/* exec-run.c: run a prepared command.exec (terminal, detached, or
 * --json in pipes mode); session is the session record, or NULL. */
int exec_run_params(const struct client_opts *o, struct client *cl,
    json_t *params, int detach, const json_t *session);

/* exec.c: notes about the sandbox a command runs in. */
/* On a terminal (stderr), say which profile a session has and where it
 * came from; always warn when it is not sandboxed (once). */
void exec_note_profile(const json_t *session, int always);
/* Add "sandboxed" (and "profile") of a session to a --json result. */
void exec_mark_sandboxed(json_t *result, const json_t *session);
/* Warn about folders a session's profile grants that do not exist; adds
 * them to the session's "warnings". */
void exec_folder_warnings(struct client *cl, json_t *session);
/* Drop sboxd's line about the env names a new session does not take (the
 * CLI sends its whole environment; "env_dropped" keeps the names). */
void exec_quiet_env_warning(json_t *session);
/* Add stdout_text/stderr_text (when UTF-8) beside the base64 output. */
void exec_add_text(json_t *result);
int cmd_cache(const struct client_opts *o, int argc, char **argv);

/* cmd-choices.c: sbox session status ID, sbox session choices [...], and
 * sbox session send ID --sandbox P --stdin. */
int cmd_choices_status(const struct client_opts *o, int argc, char **argv);
int cmd_choices_choices(const struct client_opts *o, int argc, char **argv);
int cmd_choices_send(const struct client_opts *o, int argc, char **argv);

/* cmd-outside.c: sbox session outside|log. */
int cmd_outside_run(const struct client_opts *o, int argc, char **argv);
int cmd_outside_log(const struct client_opts *o, int argc, char **argv);

/* outside-text.c: text helpers for what an agent wrote (argv, reasons:
 * control characters are shown escaped). */
/* argv as one shell-like line (quoted where needed); caller frees. */
char *outside_text_argv(const json_t *argv);
/* A string with control and direction-changing characters escaped;
 * caller frees. */
char *outside_text_escape(const char *s);
/* Print exactly what a run-outside request runs (command line, absolute
 * program and whether the sandbox could write it, folder, variables added,
 * names dropped), each line after indent. */
void outside_text_print_what(const json_t *req, const char *indent);
/* A store time (NAME_at_ms of a record) as local "YYYY-MM-DD HH:MM:SS". */
void outside_text_time(const json_t *rec, const char *key, char *buf,
    size_t len);

/* worktree.c: make a linked worktree of repo on branch (*path: its folder),
 * and remove one. */
int worktree_add(const char *repo, const char *branch, char **path,
    sbox_error *err);
int worktree_remove(const char *path, sbox_error *err);
/* The top of the git work tree holding dir, else dir (realpath'd, malloc'd). */
char *worktree_top(const char *dir);

/* environ.c: our environment as a JSON object {NAME: VALUE}. */
json_t *environ_json(void);

#endif
