/* exec-tty.c: running a command on a terminal of its sandbox with ours
 * (`sbox session exec -t`, `sbox session shell`). Our terminal goes into raw
 * mode (and back on every way out, signals included); our stdin and stdout
 * go to sboxd, which relays them to the pty that sbox-init made inside, so
 * Ctrl-C, Ctrl-Z and Ctrl-\ are bytes for the terminal inside, whose line
 * discipline signals the foreground process group there. A change of our
 * window size becomes command.resize. */
#include "client/client.h"
#include "client/ttyfilter.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static struct termios exec_tty_saved;
static volatile sig_atomic_t exec_tty_raw;     /* our terminal is raw */
static volatile sig_atomic_t exec_tty_winch;   /* the window changed */
static volatile sig_atomic_t exec_tty_stop;    /* SIGINT/TERM/HUP/QUIT */
static volatile sig_atomic_t exec_tty_tstp;    /* SIGTSTP from outside */
static int exec_tty_atexit;

/* What the command.started notification told: the command's id. */
struct exec_tty_state {
	long long command;
};

/* Put our terminal back as it was (safe in a signal handler). */
static void
exec_tty_restore(void)
{
	if (exec_tty_raw) {
		tcsetattr(0, TCSADRAIN, &exec_tty_saved);
		exec_tty_raw = 0;
	}
}

/* Make our terminal raw: every byte goes to the terminal inside. */
static int
exec_tty_make_raw(void)
{
	struct termios t = exec_tty_saved;

	cfmakeraw(&t);
	if (tcsetattr(0, TCSADRAIN, &t) == -1)
		return -1;
	exec_tty_raw = 1;
	return 0;
}

/* A signal while the command runs: note it (SIGWINCH, a stop from outside)
 * or stop the command (SIGINT, SIGTERM, SIGHUP, SIGQUIT from outside: the
 * keys themselves are bytes in raw mode). */
static void
exec_tty_on_signal(int sig)
{
	if (sig == SIGWINCH)
		exec_tty_winch = 1;
	else if (sig == SIGTSTP)
		exec_tty_tstp = 1;
	else {
		exec_tty_stop = sig;
		exec_tty_restore();
	}
}

/* Notifications while it runs: keep the command's id; print a refusal. */
static int
exec_tty_notify(const char *method, json_t *params, void *arg)
{
	struct exec_tty_state *st = arg;

	if (strcmp(method, "command.started") == 0 &&
	    json_is_integer(json_object_get(params, "command")))
		st->command = json_integer_value(json_object_get(params,
		    "command"));
	else if (strcmp(method, "command.blocked") == 0)
		exec_live_blocked(params);	/* shown when it happens */
	return 0;
}

/* Our window size (24x80 when the terminal does not say). */
static void
exec_tty_size(int *rows, int *cols)
{
	struct winsize ws;

	memset(&ws, 0, sizeof ws);
	if (ioctl(1, TIOCGWINSZ, &ws) == -1 && ioctl(0, TIOCGWINSZ, &ws) == -1)
		memset(&ws, 0, sizeof ws);
	*rows = ws.ws_row > 0 && ws.ws_row <= 4096 ? ws.ws_row : 24;
	*cols = ws.ws_col > 0 && ws.ws_col <= 4096 ? ws.ws_col : 80;
}

/* Does the config sboxd uses keep the sequences that act on the person's
 * machine ("terminal": {"drop_osc": false})? Anything else, an unreadable
 * config included, drops them. (Read here for the relay; sboxd checks the
 * key when it loads the config.) */
static int
exec_tty_config_keeps(struct client *cl)
{
	json_t *r, *conf;
	sbox_error err;
	const char *path;
	int keep = 0;

	error_clear(&err);
	r = client_call(cl, "daemon.status", NULL, NULL, 0, &err);
	path = json_string_value(json_object_get(r, "config"));
	if (path != NULL && (conf = json_load_file(path, 0, NULL)) != NULL) {
		keep = json_is_false(json_object_get(json_object_get(conf,
		    "terminal"), "drop_osc"));
		json_decref(conf);
	}
	json_decref(r);
	return keep;
}

/* Are the sequences that act on the person's machine dropped from what
 * the sandbox writes to our terminal (--drop-osc, --keep-osc, else the
 * config, else yes)? The config is asked for once per sbox. */
int
exec_tty_drops(const struct client_opts *o, struct client *cl)
{
	static int keeps = -1;

	if (o->osc != 0)
		return o->osc == 1;
	if (keeps == -1)
		keeps = exec_tty_config_keeps(cl);
	return !keeps;
}

/* Copy what the relay pipe holds to our stdout through the filter; 1 at
 * its end (or an error; at_end: when it holds nothing more now), 0 when
 * it may hold more later. */
static int
exec_tty_filter_out(int fd, struct ttyfilter *f, int at_end)
{
	unsigned char in[16384], out[sizeof in + TTYFILTER_HOLD];
	size_t n, off;
	ssize_t k, w;

	for (;;) {
		if ((k = read(fd, in, sizeof in)) < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN && !at_end)
			return 0;
		n = k > 0 ? ttyfilter_run(f, in, (size_t)k, out) :
		    ttyfilter_flush(f, out);
		for (off = 0; off < n; off += (size_t)w) {
			if ((w = write(1, out + off, n - off)) < 0) {
				if (errno != EINTR && errno != EAGAIN)
					break;
				w = 0;
				if (errno == EAGAIN)
					poll(&(struct pollfd){ 1, POLLOUT, 0 }, 1,
					    -1);
			}
		}
		if (k <= 0)
			return 1;
	}
}

/* Are stdin and stdout terminals (what -t needs)? */
int
exec_tty_possible(void)
{
	return isatty(0) && isatty(1);
}

/* Run params (a command.exec request) on a terminal of the sandbox with
 * ours; returns the result (caller owns) or NULL with err. With the
 * sequences that act on our machine dropped (the default), sboxd
 * writes the terminal's output into a pipe and sbox filters it on its way
 * to our stdout. */
json_t *
exec_tty_run(const struct client_opts *o, struct client *cl, json_t *params,
    sbox_error *err)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
	    SIGTSTP };
	struct sigaction sa, old[sizeof sigs / sizeof sigs[0]];
	struct exec_tty_state st = { 0 };
	int fds[3] = { 0, 1, 2 }, rows, cols, cancelled = 0;
	const char *term = getenv("TERM");
	json_t *r = NULL, *env;
	long long id = -1;
	size_t i;
	struct ttyfilter filt;
	struct pollfd pfd[2];
	int relay[2] = { -1, -1 };

	if (!exec_tty_possible())
		return error_set(err, E_INVALID_PARAMS, "-t needs stdin and "
		    "stdout to be terminals (use --no-tty)"), NULL;
	if (tcgetattr(0, &exec_tty_saved) == -1)
		return error_set_errno(err, E_IO, errno, "the terminal"), NULL;
	exec_tty_size(&rows, &cols);
	json_object_set_new(params, "stdio", json_string("fds"));
	json_object_set_new(params, "tty", json_pack("{s:i, s:i}", "rows", rows,
	    "cols", cols));
	/* the kind of terminal, for programs inside (unless --env set it) */
	if (term != NULL && term[0] != '\0') {
		if ((env = json_object_get(params, "env")) == NULL) {
			env = json_object();
			json_object_set_new(params, "env", env);
		}
		if (json_object_get(env, "TERM") == NULL)
			json_object_set_new(env, "TERM", json_string(term));
	}
	exec_tty_winch = exec_tty_stop = exec_tty_tstp = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = exec_tty_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, &old[i]);
	if (!exec_tty_atexit) {
		atexit(exec_tty_restore);
		exec_tty_atexit = 1;
	}
	if (exec_tty_drops(o, cl)) {
		if (pipe2(relay, O_CLOEXEC) == -1) {
			error_set_errno(err, E_IO, errno, "pipe");
			goto out;
		}
		fcntl(relay[0], F_SETFL, fcntl(relay[0], F_GETFL) | O_NONBLOCK);
		fds[1] = relay[1];
		ttyfilter_init(&filt);
	}
	client_on_notify(cl, exec_tty_notify, &st);
	if (exec_tty_make_raw() == -1) {
		error_set_errno(err, E_IO, errno, "raw mode for the terminal");
		goto out;
	}
	if ((id = client_send(cl, "command.exec", params, fds, 3, err)) == -1)
		goto out;
	if (relay[1] >= 0) {
		close(relay[1]);
		relay[1] = -1;
	}
	for (;;) {
		int rc;

		if (exec_tty_stop && !cancelled) {
			cancelled = 1;
			if (client_notify(cl, "$/cancelRequest", json_pack("{s:I}",
			    "id", (json_int_t)id), err) == -1)
				goto out;
		}
		if (exec_tty_tstp) {	/* stopped from outside: as we were */
			exec_tty_tstp = 0;
			exec_tty_restore();
			kill(getpid(), SIGSTOP);
			exec_tty_make_raw();
			exec_tty_winch = 1;
		}
		if (exec_tty_winch && st.command > 0) {
			exec_tty_winch = 0;
			exec_tty_size(&rows, &cols);
			/* a notification: nothing waits for its answer */
			if (client_notify(cl, "command.resize", json_pack("{s:I, "
			    "s:i, s:i}", "command", (json_int_t)st.command,
			    "rows", rows, "cols", cols), err) == -1)
				goto out;
		}
		if (relay[0] >= 0) {
			/* the filtered output and the answer together */
			pfd[0] = (struct pollfd){ client_fd(cl), POLLIN, 0 };
			pfd[1] = (struct pollfd){ relay[0], POLLIN, 0 };
			if (poll(pfd, 2, 200) > 0 && pfd[1].revents &&
			    exec_tty_filter_out(relay[0], &filt, 0)) {
				close(relay[0]);
				relay[0] = -1;
			}
			rc = client_wait_step(cl, id, 0, &r, err);
		} else
			rc = client_wait_step(cl, id, 200, &r, err);
		if (rc < 0)
			goto out;
		if (rc > 0)
			break;
	}
out:
	/* what is left of the output (all of it is in the pipe before the
	 * answer comes) */
	if (relay[0] >= 0) {
		exec_tty_filter_out(relay[0], &filt, 1);
		close(relay[0]);
	}
	if (relay[1] >= 0)
		close(relay[1]);
	exec_tty_restore();
	client_on_notify(cl, NULL, NULL);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &old[i], NULL);
	exec_note_interrupted(exec_tty_stop);
	exec_live_mark(r);
	return r;
}
