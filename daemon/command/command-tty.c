/* command-tty.c: a command on a terminal of its sandbox. sbox-init makes
 * the pty in the container's own devpts and hands its master over once the
 * command runs; sboxd relays it. With stdio "fds" the client's own terminal
 * (stdin, stdout) is read and written here, so the sandbox never holds a
 * descriptor of the host's terminal; with "pipes" the output goes out as
 * command.output stream "tty" and command.write types on the terminal.
 * command.resize sets the window size (the kernel then sends SIGWINCH to
 * the foreground process group inside). */
#include "daemon/command/command-tty.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/command/command-io.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/plan.h"

#define COMMAND_TTY_HIGH (1024 * 1024)  /* bytes queued for the terminal */

/* The client's terminal has input: queue it for the master. */
static void
command_tty_in_read_cb(struct bufferevent *bev, void *arg)
{
	struct command *c = arg;
	struct evbuffer *to;

	if (c->out.bev == NULL) {
		evbuffer_drain(bufferevent_get_input(bev), (size_t)-1);
		return;
	}
	to = bufferevent_get_output(c->out.bev);
	evbuffer_add_buffer(to, bufferevent_get_input(bev));
	/* a command that does not read its terminal stops our reading */
	if (evbuffer_get_length(to) > COMMAND_TTY_HIGH)
		bufferevent_disable(bev, EV_READ);
}

/* The client's terminal ended or failed: stop reading it (the command goes
 * on; its client's going away is what stops it). */
static void
command_tty_in_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct command *c = arg;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	bufferevent_free(bev);
	c->tty_in = NULL;
}

/* The master took what was queued for it: read the client's input again. */
static void
command_tty_master_write_cb(struct bufferevent *bev, void *arg)
{
	struct command *c = arg;

	(void)bev;
	if (c->tty_in != NULL)
		bufferevent_enable(c->tty_in, EV_READ);
}

/* The master reached its end (every slave closed: EIO) or failed. A failed
 * write only drops what was typed; the output is read to its end. */
static void
command_tty_master_event_cb(struct bufferevent *bev, short what, void *arg)
{
	if ((what & BEV_EVENT_WRITING) && !(what & BEV_EVENT_EOF)) {
		evbuffer_drain(bufferevent_get_output(bev), (size_t)-1);
		bufferevent_disable(bev, EV_WRITE);
		return;
	}
	command_io_event_cb(bev, BEV_EVENT_EOF, arg);
}

/* A client's stdin or stdout for the relay: a terminal or a pipe, opened
 * again non-blocking (what the event loop can watch); fd is taken. */
static int
command_tty_client_fd(int fd, int flags)
{
	struct stat st;
	int nfd = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (isatty(fd) || S_ISFIFO(st.st_mode)))
		nfd = command_io_reopen(fd, flags);
	else
		errno = EINVAL;
	close(fd);
	return nfd;
}

/* Before the spawn: the master's bufferevent (its fd comes later; what is
 * typed meanwhile waits in it) and, with "fds", the client's terminal. */
int
command_tty_setup(struct command *c, struct rpc_call *call, sbox_error *err)
{
	int in, out, i, e, fds[3];

	if (c->stdio == COMMAND_STDIO_NONE)
		return error_set_field(err, E_INVALID_PARAMS, "tty",
		    "a terminal needs stdio \"fds\" or \"pipes\"");
	if (c->stdio == COMMAND_STDIO_FDS && (call == NULL ||
	    rpc_call_nfds(call) < 3))
		return error_set_field(err, E_INVALID_PARAMS, "stdio",
		    "stdio \"fds\" needs 3 file descriptors passed with the "
		    "request (SCM_RIGHTS)");
	c->out.bev = bufferevent_socket_new(sboxd.base, -1,
	    BEV_OPT_CLOSE_ON_FREE);
	if (c->out.bev == NULL)
		return error_set(err, E_INTERNAL, "cannot make a terminal relay");
	bufferevent_setcb(c->out.bev, command_io_read_cb,
	    command_tty_master_write_cb, command_tty_master_event_cb, c);
	bufferevent_setwatermark(c->out.bev, EV_READ, 0, 32 * 1024 * 4);
	bufferevent_disable(c->out.bev, EV_READ | EV_WRITE);
	c->out.open = 1;
	if (c->stdio != COMMAND_STDIO_FDS)
		return 0;
	/* the client's stdin and stdout, opened again non-blocking here: the
	 * sandbox gets neither, and the client's own flags stay */
	for (i = 0; i < 3; i++)
		fds[i] = rpc_call_take_fd(call, i);
	if (fds[2] >= 0)
		close(fds[2]);	/* the terminal is stdout and stderr */
	in = command_tty_client_fd(fds[0], O_RDONLY);
	e = errno;
	out = command_tty_client_fd(fds[1], O_WRONLY);
	if (out == -1)
		e = errno;
	if (in == -1 || out == -1) {
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return error_set_field(err, E_INVALID_PARAMS, "stdio",
		    "stdio \"fds\" with a terminal needs a stdin and stdout "
		    "that are terminals or pipes sboxd can open again: %s; "
		    "use stdio \"pipes\"", e == EINVAL ? "one is neither" :
		    strerror(e));
	}
	if (command_io_forward_to(c, &c->out, out, err) == -1) {
		close(in);
		return -1;
	}
	c->tty_in = bufferevent_socket_new(sboxd.base, in,
	    BEV_OPT_CLOSE_ON_FREE);
	if (c->tty_in == NULL) {
		close(in);
		return error_set(err, E_INTERNAL, "cannot watch the terminal");
	}
	bufferevent_setcb(c->tty_in, command_tty_in_read_cb, NULL,
	    command_tty_in_event_cb, c);
	bufferevent_enable(c->tty_in, EV_READ);
	return 0;
}

/* Set the window size on the master. */
static int
command_tty_winsize(struct command *c, sbox_error *err)
{
	struct winsize ws;

	memset(&ws, 0, sizeof ws);
	ws.ws_row = c->tty_size.rows;
	ws.ws_col = c->tty_size.cols;
	if (ioctl(bufferevent_getfd(c->out.bev), TIOCSWINSZ, &ws) == -1)
		return error_set_errno(err, E_IO, errno, "resize the terminal");
	return 0;
}

/* The pty's master came from sbox-init: relay it. */
void
command_tty_master(struct command *c, int master)
{
	sbox_error err;

	if (c->state != COMMAND_RUNNING || c->out.bev == NULL ||
	    c->tty_master) {
		close(master);
		return;
	}
	c->tty_master = 1;
	bufferevent_setfd(c->out.bev, master);
	/* a resize asked for before it came */
	command_tty_winsize(c, &err);
	bufferevent_enable(c->out.bev, EV_READ | EV_WRITE);
}

/* Bytes for the terminal (command.write). */
int
command_tty_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err)
{
	if (eof)
		return error_set_field(err, E_INVALID_PARAMS, "eof",
		    "command %lld runs on a terminal: it has no end of input "
		    "to close (write the terminal's end-of-file character, "
		    "\"\\u0004\", or its interrupt, \"\\u0003\")", c->id);
	if (c->state != COMMAND_RUNNING || c->exited || c->out.bev == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "command",
		    "command %lld is not running", c->id);
	if (evbuffer_get_length(bufferevent_get_output(c->out.bev)) + n >
	    COMMAND_TTY_HIGH)
		return error_set(err, E_LIMIT, "the command is not reading its "
		    "terminal; %zu bytes were not written", n);
	if (n > 0 && bufferevent_write(c->out.bev, data, n) == -1)
		return error_nomem(err);
	return 0;
}

/* Change the window size of a command's terminal. */
int
command_tty_resize(struct command *c, const struct ttysize *size,
    sbox_error *err)
{
	if (!c->tty)
		return error_set_field(err, E_INVALID_PARAMS, "command",
		    "command %lld does not run on a terminal (start it with "
		    "tty {rows, cols})", c->id);
	if (c->state != COMMAND_RUNNING || c->exited || c->out.bev == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "command",
		    "command %lld is not running", c->id);
	c->tty_size = *size;
	if (!c->tty_master)
		return 0; /* set when the master comes */
	return command_tty_winsize(c, err);
}

/* Release the relay: the client's terminal and the master. */
void
command_tty_free(struct command *c)
{
	if (c->tty_in != NULL)
		bufferevent_free(c->tty_in);
	c->tty_in = NULL;
	if (c->out.bev != NULL)
		bufferevent_free(c->out.bev);
	c->out.bev = NULL;
	c->out.open = 0;
}
