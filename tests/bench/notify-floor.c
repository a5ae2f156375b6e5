/* notify-floor.c: the least a seccomp user-notification guard of opens can
 * cost, as one more column of bench-guard (issue 24). It runs a command
 * under a filter that stops every open, openat and openat2 at a listener
 * and answers each at once with "continue": no path read, no decision, no
 * report, one thread, synchronous wake-ups as sbox-init asks for. What it
 * costs over the same job without it is the round trip alone, the part
 * of the file guard's read reports that no decision code can remove. Not
 * a product: a bench tool.
 *   notify-floor COMMAND [ARG...]
 * Prints "FLOOR_CPU SECONDS" (its own CPU) after the command ends, and
 * exits with the command's status. */
#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "policy/guard-filter.h"
#include "tests/bench/floor-fd.h"


/* In the child: the filter, its listener to the parent, then the command. */
static void
floor_child(int sock, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int fd;

	if (ctx == NULL || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat2), 0) < 0 ||
	    seccomp_load(ctx) < 0 || (fd = seccomp_notify_fd(ctx)) < 0) {
		fprintf(stderr, "notify-floor: cannot set the filter\n");
		_exit(126);
	}
	if (floor_fd_send(sock, "", 1, &fd, 1) == -1)
		_exit(126);
	close(fd);
	close(sock);
	execvp(argv[0], argv);
	_exit(127);
}

/* Answer every notification with "continue" until the command ends. */
int
main(int argc, char **argv)
{
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct rusage ru;
	int sv[2], lfd = -1, nfd, status = 0;
	char c;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: notify-floor COMMAND [ARG...]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		floor_child(sv[1], argv + 1);
	}
	close(sv[1]);
	if (floor_fd_recv(sv[0], &c, 1, &lfd, &nfd) != 1 || nfd != 1) {
		waitpid(pid, &status, 0);
		return 126;
	}
	ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	if (seccomp_notify_alloc(&req, &resp) < 0)
		return 1;
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		if (poll(&p, 1, -1) == -1 && errno != EINTR)
			break;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			break;	/* no process uses the filter any more */
		memset(req, 0, sizeof *req);
		if (seccomp_notify_receive(lfd, req) < 0)
			continue;	/* its caller went away */
		memset(resp, 0, sizeof *resp);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		seccomp_notify_respond(lfd, resp);
	}
	waitpid(pid, &status, 0);
	getrusage(RUSAGE_SELF, &ru);
	printf("FLOOR_CPU %.3f\n", ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	seccomp_notify_free(req, resp);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
