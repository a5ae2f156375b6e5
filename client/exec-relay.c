/* exec-relay.c: the person's terminal never goes into a sandbox. Before a
 * command.exec with stdio "fds", each of our stdin, stdout and stderr that
 * is not a file, a pipe, a socket or a memory device (/dev/null, ...) is
 * replaced by a pipe, and sbox copies between the pipe and the descriptor
 * while the command runs (as ssh does without -t). The sandbox then holds
 * pipes only: no ioctl of the person's terminal (line discipline, termios,
 * exclusive mode) and no terminal query answered into the host's shell.
 * What the command writes to our stdout and stderr goes through
 * ttyfilter.c on its way (by default): no clipboard write, title,
 * notification or window operation reaches the person's terminal. */
#include "client/client.h"
#include "policy/stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXEC_RELAY_DRAIN (4 * 1024 * 1024) /* read after the end, at most */

static int exec_relay_drop;	/* the next relays filter their output */

/* Decide whether the next relays filter what they copy to our stdout and
 * stderr: when either is relayed (a terminal, ...) and o, the config or
 * the default drops the sequences (the config is asked for only then). */
void
exec_relay_filter(const struct client_opts *o, struct client *cl)
{
	exec_relay_drop = (!stdio_fd_allowed(1) || !stdio_fd_allowed(2)) &&
	    exec_tty_drops(o, cl);
}

/* Replace each of our fds 0..2 that may not go in by a pipe: r->pass gets
 * what to pass with the request, r->mine our end (-1: passed as is). */
int
exec_relay_open(struct exec_relay *r, sbox_error *err)
{
	int i, p[2];

	memset(r, 0, sizeof *r);
	for (i = 0; i < 3; i++) {
		r->pass[i] = i;
		r->mine[i] = -1;
	}
	for (i = 0; i < 3; i++) {
		if (stdio_fd_allowed(i))
			continue;
		if (pipe2(p, O_CLOEXEC) == -1) {
			exec_relay_close(r);
			return error_set_errno(err, E_IO, errno, "pipe");
		}
		r->pass[i] = i == 0 ? p[0] : p[1];
		r->mine[i] = i == 0 ? p[1] : p[0];
		fcntl(r->mine[i], F_SETFL, fcntl(r->mine[i], F_GETFL) |
		    O_NONBLOCK);
	}
	r->filtered = exec_relay_drop;
	for (i = 0; i < 3; i++)
		ttyfilter_init(&r->filt[i]);
	/* a command that closes its stdin must not kill sbox */
	r->sigpipe_saved = 1;
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN },
	    &r->old_pipe);
	return 0;
}

/* The request went out: close our copies of the ends the sandbox got. */
void
exec_relay_sent(struct exec_relay *r)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (r->mine[i] >= 0 && r->pass[i] != i)
			close(r->pass[i]);
		r->pass[i] = i;
	}
}

/* Is our stdin a terminal whose foreground we are not (reading it would
 * stop sbox with SIGTTIN)? */
static int
exec_relay_background(void)
{
	pid_t fg = tcgetpgrp(0);

	return fg != -1 && fg != getpgrp();
}

/* Add the relay's fds to poll for to p (at most 3); returns how many. */
int
exec_relay_pollfds(struct exec_relay *r, struct pollfd *p)
{
	int n = 0, i;

	if (r->mine[0] >= 0) {
		if (r->inlen > 0)
			p[n++] = (struct pollfd){ r->mine[0], POLLOUT, 0 };
		else if (!r->in_eof && !exec_relay_background())
			p[n++] = (struct pollfd){ 0, POLLIN, 0 };
	}
	for (i = 1; i < 3; i++)
		if (r->mine[i] >= 0)
			p[n++] = (struct pollfd){ r->mine[i], POLLIN, 0 };
	return n;
}

/* Write all of buf to fd (our stdout or stderr; blocking as any program's
 * output); the bytes are dropped when fd fails. */
static void
exec_relay_write_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, buf, n)) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd p = { fd, POLLOUT, 0 };
				poll(&p, 1, -1);
				continue;
			}
			return;
		}
		buf += w;
		n -= (size_t)w;
	}
}

/* Copy what the command wrote on pipe i (1 or 2) to our fd i; 0 while the
 * pipe is open, 1 at its end (then closed). */
static int
exec_relay_out(struct exec_relay *r, int i, size_t *budget)
{
	char buf[16384];
	unsigned char out[sizeof buf + TTYFILTER_HOLD];
	ssize_t n;

	for (;;) {
		if (budget != NULL && *budget == 0)
			return 1;
		n = read(r->mine[i], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			close(r->mine[i]);
			r->mine[i] = -1;
			ttyfilter_flush(&r->filt[i], out);
			return 1;
		}
		if (r->filtered)
			exec_relay_write_all(i, (const char *)out, ttyfilter_run(
			    &r->filt[i], (const unsigned char *)buf, (size_t)n,
			    out));
		else
			exec_relay_write_all(i, buf, (size_t)n);
		if (budget != NULL)
			*budget -= (size_t)n > *budget ? *budget : (size_t)n;
		if (budget == NULL)
			return 0;
	}
}

/* Move what is ready: our stdin into its pipe, the pipes' output to our
 * stdout and stderr (p: the pollfds exec_relay_pollfds filled, polled). */
void
exec_relay_step(struct exec_relay *r, const struct pollfd *p, int n)
{
	ssize_t k;
	int j;

	for (j = 0; j < n; j++) {
		if (p[j].revents == 0)
			continue;
		if (p[j].fd == 0 && r->mine[0] >= 0) {
			k = read(0, r->in, sizeof r->in);
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k <= 0) {
				/* the end of our input (^D; EIO: a terminal that
				 * hung up, or an orphaned background job): the
				 * command's too */
				r->in_eof = 1;
				close(r->mine[0]);
				r->mine[0] = -1;
				continue;
			}
			r->inoff = 0;
			r->inlen = (size_t)k;
		} else if (p[j].fd == r->mine[0]) {
			k = write(r->mine[0], r->in + r->inoff, r->inlen);
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k < 0) {
				/* the command closed its stdin: stop typing */
				r->in_eof = 1;
				r->inlen = 0;
				close(r->mine[0]);
				r->mine[0] = -1;
				continue;
			}
			r->inoff += (size_t)k;
			r->inlen -= (size_t)k;
		} else if (p[j].fd == r->mine[1])
			exec_relay_out(r, 1, NULL);
		else if (p[j].fd == r->mine[2])
			exec_relay_out(r, 2, NULL);
	}
}

/* The command is over: copy what is left in its pipes (everything it
 * wrote is there before its end is told; a process it left in the
 * background gets a closed pipe) and close the relay. */
void
exec_relay_close(struct exec_relay *r)
{
	size_t budget = EXEC_RELAY_DRAIN;
	int i;

	for (i = 1; i < 3; i++)
		if (r->mine[i] >= 0)
			exec_relay_out(r, i, &budget);
	for (i = 0; i < 3; i++) {
		if (r->mine[i] >= 0)
			close(r->mine[i]);
		if (r->pass[i] != i)
			close(r->pass[i]);
		r->mine[i] = -1;
		r->pass[i] = i;
	}
	if (r->sigpipe_saved)
		sigaction(SIGPIPE, &r->old_pipe, NULL);
	r->sigpipe_saved = 0;
}
