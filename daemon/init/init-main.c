/* init-main.c: sbox-init, pid 1 of a session's container.
 *
 * Started by bwrap as `sbox-init --ctl FD [--proxy-port PORT]`. It makes
 * itself non-dumpable, creates the proxy's listening sockets inside the
 * container's network namespace, hands them to sboxd in a `ready` message,
 * then serves the control socket (ctl.h) from one poll() loop: it never
 * blocks on a child. When the control socket closes, or on `shutdown`, it
 * kills every process of the sandbox and exits (which ends the pid
 * namespace). Everything it receives is validated as untrusted. */
#include "protocol/channel.h"
#include "protocol/ctl.h"
#include "daemon/init/init-exclude.h"
#include "daemon/init/init-files.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-ops.h"
#include "daemon/init/init-reads.h"
#include "daemon/init/init-spawn.h"
#include "daemon/init/init-supervise.h"
#include "daemon/init/init-tell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* Close every descriptor but 0, 1, 2 and keep. */
static void
init_close_others(int keep)
{
	int fd;

	if (keep > 3)
		syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u);
	if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
	for (fd = 3; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

/* Make sure 0, 1 and 2 are open (children's fds must not land there). */
static void
init_stdio(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		if (open("/dev/null", O_RDWR) != fd)
			init_msg_fatal("cannot open /dev/null as fd %d", fd);
	}
}

/* Parse argv: --ctl FD [--proxy-port PORT]. */
static void
init_args(int argc, char **argv, int *port)
{
	char *end;
	long v;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		errno = 0;
		v = strtol(argv[i + 1], &end, 10);
		if (errno || *end || end == argv[i + 1])
			init_msg_fatal("bad number for %s", argv[i]);
		if (strcmp(argv[i], "--ctl") == 0 && v >= 3 && v < INT_MAX)
			init_msg_ctl_fd = (int)v;
		else if (strcmp(argv[i], "--proxy-port") == 0 && v > 0 &&
		    v < 65536)
			*port = (int)v;
		else
			init_msg_fatal("bad argument %s", argv[i]);
	}
	if (i != argc || init_msg_ctl_fd < 0)
		init_msg_fatal("usage: sbox-init --ctl FD [--proxy-port PORT]");
}

/* Create the proxy's listeners and tell sboxd we are ready. */
static void
init_ready(int port)
{
	const char *fam[2];
	json_t *families;
	int fds[2], n, i;

	n = init_files_listeners(port, fds, fam);
	if (n == 0) {
		init_msg_send_error(NULL, errno,
		    "cannot listen on 127.0.0.1:%d inside the sandbox: %s",
		    port, strerror(errno));
		init_msg_exit(1);
	}
	families = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(families, json_string(fam[i]));
	init_msg_send(ctl_msg("ready", "{s:i,s:i,s:o}", "pid", (int)getpid(),
	    "proxy_port", port, "families", families), fds, n);
	ctl_close_fds(fds, n);
}

/* spawn {...} + its stdio and channel: init_spawn owns the fds. */
static int
init_main_on_spawn(void *ctx, json_t *msg, int *fds, int nfds, sbox_error *err)
{
	const char *text;
	size_t len;

	(void)ctx; (void)err;
	/* msg came from the last ctl_recv (init_ctl_readable): passed on to
	 * the spare as it came */
	text = ctl_recv_text(&len);
	init_spawn(msg, text, len, fds, nfds);
	for (len = 0; len < (size_t)nfds; len++)
		fds[len] = -1;	/* init_spawn's now */
	return 0;
}

/* guard {...} + the memfd of its bytes (closed by the caller). */
static int
init_main_on_guard(void *ctx, json_t *msg, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)err;
	init_supervise_guard(msg, fds, nfds);
	return 0;
}

/* kill {id, signal?}. */
static int
init_main_on_kill(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_spawn_kill(m);
	return 0;
}

/* open {req, path, flags[], mode?}. */
static int
init_main_on_open(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_files_open(m);
	return 0;
}

/* mkdir {req, path, mode?}. */
static int
init_main_on_mkdir(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_files_mkdir(m);
	return 0;
}

/* stat {req, path, nofollow?}. */
static int
init_main_on_stat(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_files_stat(m);
	return 0;
}

/* listen_local {req, port}. */
static int
init_main_on_listen(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_files_listen(m);
	return 0;
}

/* guard_protect {missing[]}. */
static int
init_main_on_protect(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_supervise_protect(m);
	return 0;
}

/* exclude_done {xid, code, message?}. */
static int
init_main_on_exclude_done(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_exclude_done(m);
	return 0;
}

/* told {ticket, text?}. */
static int
init_main_on_told(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_tell_told(m);
	return 0;
}

/* fs_read {pid, path, errno, token}: a read the stand-ins refused. */
static int
init_main_on_fs_read(void *ctx, json_t *m, int *fds, int nfds,
    sbox_error *err)
{
	(void)ctx; (void)fds; (void)nfds; (void)err;
	init_tell_fs_read(m);
	return 0;
}

/* shutdown {}: everything ends. */
static int
init_main_on_shutdown(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)m; (void)fds; (void)nfds; (void)err;
	init_msg_exit(0);
}

/* The fields checked before a handler (each handler checks the rest). */
#define REQ { "req", CHANNEL_INT, 0, 0, INT64_MAX }
#define END { NULL, 0, 0, 0, 0 }
/* (the rest of a spawn, once: init-spawnreq.c) */
static const struct channel_field init_main_f_spawn[] = {
	{ "id", CHANNEL_INT, 0, 0, INT64_MAX }, END };
static const struct channel_field init_main_f_kill[] = {
	{ "id", CHANNEL_INT, 0, 0, INT64_MAX },
	{ "signal", CHANNEL_INT, CHANNEL_OPTIONAL, 1, 64 }, END };
static const struct channel_field init_main_f_path[] = {
	REQ, { "path", CHANNEL_PATH, 0, 1, CTL_PATH_MAX }, END };
static const struct channel_field init_main_f_listen[] = {
	REQ, { "port", CHANNEL_INT, 0, 1, 65535 }, END };
static const struct channel_field init_main_f_exclude_done[] = {
	{ "xid", CHANNEL_INT, 0, 1, INT64_MAX },
	{ "code", CHANNEL_INT, 0, INT64_MIN, INT64_MAX }, END };
static const struct channel_field init_main_f_told[] = {
	{ "ticket", CHANNEL_INT, 0, 1, INT64_MAX }, END };
static const struct channel_field init_main_f_fs_read[] = {
	{ "pid", CHANNEL_INT, 0, 2, 4194304 },
	{ "path", CHANNEL_PATH, 0, 1, CTL_PATH_MAX },
	{ "errno", CHANNEL_INT, 0, 0, 4095 },
	{ "token", CHANNEL_INT, 0, 0, INT64_MAX }, END };
#undef REQ
#undef END

/* What sbox-init accepts from sboxd (protocol/ctl.h): the one table. */
static const struct channel_row init_main_rows[] = {
	{ "spawn", init_main_on_spawn, CHANNEL_SBOXD, 0, 4, init_main_f_spawn },
	/* (its fields and memfd: the handler's, which sets no guard for
	 * anything it cannot take, EPERM) */
	{ "guard", init_main_on_guard, CHANNEL_SBOXD, 0, CTL_FDS_MAX, NULL },
	{ "kill", init_main_on_kill, CHANNEL_SBOXD, 0, 0, init_main_f_kill },
	{ "open", init_main_on_open, CHANNEL_SBOXD, 0, 0, init_main_f_path },
	{ "mkdir", init_main_on_mkdir, CHANNEL_SBOXD, 0, 0, init_main_f_path },
	{ "stat", init_main_on_stat, CHANNEL_SBOXD, 0, 0, init_main_f_path },
	{ "listen_local", init_main_on_listen, CHANNEL_SBOXD, 0, 0, init_main_f_listen },
	/* (its fields: the handler's, one it cannot apply breaks the guard) */
	{ "guard_protect", init_main_on_protect, CHANNEL_SBOXD, 0, 0, NULL },
	{ "exclude_done", init_main_on_exclude_done, CHANNEL_SBOXD, 0, 0,
	    init_main_f_exclude_done },
	{ "told", init_main_on_told, CHANNEL_SBOXD, 0, 0, init_main_f_told },
	{ "fs_read", init_main_on_fs_read, CHANNEL_SBOXD, 0, 0,
	    init_main_f_fs_read },
	{ "shutdown", init_main_on_shutdown, CHANNEL_SBOXD, 0, 0, NULL },
};
static const struct channel_table init_main_table = {
	"sbox-init from sboxd", init_main_rows, sizeof init_main_rows / sizeof init_main_rows[0]
};

/* Handle one message from sboxd; one it may not send is answered with an
 * error {req} saying why. */
static void
init_dispatch(json_t *msg, int *fds, int nfds)
{
	sbox_error err = { 0 };
	json_t *req = json_object_get(msg, "req");

	if (channel_dispatch(&init_main_table, CHANNEL_SBOXD, NULL, msg, fds, nfds,
	    &err) < 0) {
		if (!json_is_integer(req))
			req = json_object_get(msg, "id");
		init_msg_send_error(json_is_integer(req) &&
		    json_integer_value(req) >= 0 ? req : NULL, EINVAL, "%s",
		    err.message);
	}
	ctl_close_fds(fds, nfds);
}

/* Read what is waiting on the control socket. */
static void
init_ctl_readable(void)
{
	sbox_error err = { 0 };
	json_t *msg;
	int fds[CTL_FDS_MAX], nfds, rc, i;

	for (i = 0; i < 64; i++) {
		rc = ctl_recv(init_msg_ctl_fd, &msg, fds, &nfds, 4, &err);
		if (rc == CTL_AGAIN)
			return;
		if (rc == CTL_EOF)
			init_msg_exit(0);
		if (rc < 0) {
			if (strcmp(err.name, E_IO) == 0)
				init_msg_exit(0);
			init_msg_send_error(NULL, EINVAL, "%s", err.message);
			continue;
		}
		init_dispatch(msg, fds, nfds);
		json_decref(msg);
	}
}

/* Every disposition back to the default, whatever started sbox-init left
 * (an ignored one survives exec, down to every command): through the
 * system call, because glibc's sigaction refuses its own two (32, 33),
 * which its posix_spawn starts a child with ignored. All zero is SIG_DFL,
 * no flags and an empty mask in the kernel's struct on every arch. */
static void
init_signals_reset(void)
{
	uint64_t ksa[4] = { 0, 0, 0, 0 };
	int i;

	for (i = 1; i <= 64; i++)
		if (i != SIGKILL && i != SIGSTOP)
			syscall(SYS_rt_sigaction, i, ksa, NULL, (size_t)8);
}

/* Drain the signalfd. */
static void
init_signals(int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
		;
}

#define INIT_POLL_MAX 2200

int
main(int argc, char **argv)
{
	static struct pollfd pfd[INIT_POLL_MAX];
	sigset_t set;
	int port = 3128, sfd, n, np, ns, nx, timeout;

	if (getpid() != 1)	/* a program sent outside (init-exclude.c) */
		return init_exclude_shim(argc > 0 ? argv[0] : "sbox-init");
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	init_ops_set_source(init_reads_source);
	init_args(argc, argv, &port);
	if (fcntl(init_msg_ctl_fd, F_GETFD) < 0)
		init_msg_fatal("control socket %d is not open",
		    init_msg_ctl_fd);
	init_close_others(init_msg_ctl_fd);
	init_stdio();
	fcntl(init_msg_ctl_fd, F_SETFD, FD_CLOEXEC);
	fcntl(init_msg_ctl_fd, F_SETFL,
	    fcntl(init_msg_ctl_fd, F_GETFL) | O_NONBLOCK);
	umask(022);
	init_signals_reset();
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		init_msg_fatal("signalfd: %s", strerror(errno));
	init_ready(port);
	for (;;) {
		/* the next command's child, made while nothing waits */
		init_spawn_spare();
		pfd[0].fd = init_msg_ctl_fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = sfd;
		pfd[1].events = POLLIN;
		np = init_spawn_pollfds(pfd + 2, INIT_POLL_MAX / 2 - 2);
		ns = init_supervise_pollfds(pfd + 2 + np, INIT_POLL_MAX - 2 - np -
		    32);
		nx = init_exclude_pollfds(pfd + 2 + np + ns, INIT_POLL_MAX - 2 -
		    np - ns);
		timeout = init_spawn_timeouts();
		if (init_tell_timeout() >= 0 && (timeout < 0 ||
		    init_tell_timeout() < timeout))
			timeout = init_tell_timeout();
		n = poll(pfd, (nfds_t)(2 + np + ns + nx), timeout);
		if (n < 0 && errno != EINTR)
			init_msg_fatal("poll: %s", strerror(errno));
		init_tell_expire();
		if (n <= 0)
			continue;
		/* Exec results first, so spawned goes out before exit. */
		init_spawn_pipes(pfd + 2, np);
		/* a child's end raises SIGCHLD (blocked, so never ignored: the
		 * kernel queues it for every child that exits or is
		 * re-parented here as a zombie): reaped then, not with every
		 * message and notification (the signalfd drained before the
		 * waits: an end after them wakes the next poll) */
		if (pfd[1].revents) {
			init_signals(sfd);
			init_spawn_reap();
		}
		/* the file guard's notifications */
		init_supervise_events(pfd + 2 + np, ns);
		init_exclude_events(pfd + 2 + np + ns, nx);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			init_ctl_readable();
	}
}
