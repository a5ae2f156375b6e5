/* exec-floor.c: the least a daemon that runs commands in a long-lived
 * sandbox can cost, as one more figure of bench-container (issue 24). Three
 * roles of one program, nothing else on the way: no JSON, no store, no
 * guard, no limits, no spare process made ahead:
 *   exec-floor daemon SOCK BWRAP [BWRAP_ARG...]  listens on SOCK; starts
 *       BWRAP BWRAP_ARG... -- THIS init 3 with one end of a socketpair as
 *       fd 3, and passes each request to it;
 *   exec-floor init FD     (in the sandbox) forks and execs each request
 *       with the descriptors that came with it, answers its wait status;
 *   exec-floor run SOCK PROG [ARG...]  the client: sends argv and its fds
 *       0, 1, 2, waits for the status, exits with it.
 * The request is argv as NUL-terminated strings, the fds beside it; the
 * answer an int (the daemon's socket to the client is the request's tag).
 * Not a product: a bench tool. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/floor-fd.h"

#define FLOOR_MSG 4096
#define FLOOR_MAXARG 64

/* init: fork and exec each request; answer "tag status". */
static int
floor_init(int sock)
{
	struct { int tag; pid_t pid; } pending[256];
	int npending = 0, sfd;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC);
	for (;;) {
		struct pollfd p[2] = { { sock, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		char buf[FLOOR_MSG + 1];
		int fds[3], nfd, i;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			int st;
			pid_t pid;

			(void)!read(sfd, &si, sizeof si);
			while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
				for (i = 0; i < npending; i++)
					if (pending[i].pid == pid) {
						int out[2] = { pending[i].tag, st };
						floor_fd_send(sock, out, sizeof out,
						    NULL, 0);
						pending[i] = pending[--npending];
						break;
					}
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			ssize_t n = floor_fd_recv(sock, buf, FLOOR_MSG, fds, &nfd);
			char *argv[FLOOR_MAXARG + 1];
			int argc = 0, tag;
			pid_t pid;
			char *s;

			if (n < 0)
				return 0;
			if (nfd != 3 || (size_t)n <= sizeof tag ||
			    npending == 256)
				return 1;
			memcpy(&tag, buf, sizeof tag);
			buf[n] = '\0';
			for (s = buf + sizeof tag; s < buf + n &&
			    argc < FLOOR_MAXARG; s += strlen(s) + 1)
				argv[argc++] = s;
			argv[argc] = NULL;
			if ((pid = fork()) == 0) {
				sigprocmask(SIG_UNBLOCK, &chld, NULL);
				for (i = 0; i < 3; i++)
					dup2(fds[i], i);
				execvp(argv[0], argv);
				_exit(127);
			}
			for (i = 0; i < 3; i++)
				close(fds[i]);
			pending[npending].tag = tag;
			pending[npending++].pid = pid;
		}
	}
}

/* daemon: start the sandbox's init, then pass requests and answers. */
static int
floor_daemon(const char *path, char **bwrap, const char *self)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sv[2], lfd, n = 0;
	char *argv[FLOOR_MAXARG + 4];
	pid_t pid;

	while (bwrap[n] != NULL && n < FLOOR_MAXARG)
		argv[n] = bwrap[n], n++;
	argv[n++] = "--";
	argv[n++] = (char *)self;
	argv[n++] = "init";
	argv[n++] = "3";
	argv[n] = NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return 1;
	if ((pid = fork()) == 0) {
		dup2(sv[1], 3);	/* dup2 clears close-on-exec */
		execvp(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	unlink(path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(lfd, 64) < 0)
		return 1;
	for (;;) {
		struct pollfd p[2] = { { lfd, POLLIN, 0 }, { sv[0], POLLIN, 0 } };
		char buf[FLOOR_MSG];
		int fds[3], nfd, i;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (p[1].revents & (POLLIN | POLLHUP)) {
			int out[2];

			if (floor_fd_recv(sv[0], out, sizeof out, fds, &nfd) !=
			    sizeof out)
				return 1;	/* the sandbox ended */
			floor_fd_send(out[0], &out[1], sizeof out[1], NULL, 0);
			close(out[0]);
		}
		if (p[0].revents & POLLIN) {
			int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			ssize_t m;

			if (cfd < 0)
				continue;
			memcpy(buf, &cfd, sizeof cfd);
			m = floor_fd_recv(cfd, buf + sizeof cfd,
			    sizeof buf - sizeof cfd, fds, &nfd);
			if (m <= 0 || nfd != 3 ||
			    floor_fd_send(sv[0], buf, sizeof cfd + (size_t)m, fds,
			    3) == -1)
				close(cfd);
			for (i = 0; i < nfd; i++)
				close(fds[i]);
		}
	}
}

/* run: the client. */
static int
floor_run(const char *path, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[FLOOR_MSG];
	size_t len = 0;
	int fd, fds[3] = { 0, 1, 2 }, st, nfd, i;

	for (i = 0; argv[i] != NULL; i++) {
		size_t k = strlen(argv[i]) + 1;

		if (len + k > sizeof buf)
			return 2;
		memcpy(buf + len, argv[i], k);
		len += k;
	}
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    floor_fd_send(fd, buf, len, fds, 3) == -1 ||
	    floor_fd_recv(fd, &st, sizeof st, fds, &nfd) != sizeof st) {
		perror("exec-floor run");
		return 125;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The three roles. */
int
main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "init") == 0)
		return floor_init(atoi(argv[2]));
	if (argc >= 4 && strcmp(argv[1], "daemon") == 0)
		return floor_daemon(argv[2], argv + 3, argv[0]);
	if (argc >= 4 && strcmp(argv[1], "run") == 0)
		return floor_run(argv[2], argv + 3);
	fprintf(stderr, "usage: exec-floor daemon SOCK BWRAP [ARG...] | "
	    "init FD | run SOCK PROG [ARG...]\n");
	return 2;
}
