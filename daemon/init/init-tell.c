/* init-tell.c: a refusal told to the process it refused. sboxd decides
 * what a refusal means (a hidden path counts only when the host has it;
 * a kernel refusal only when the plan explains it) and words it, so the
 * answer to a refused call waits for sboxd's "told" of each of its
 * reports: the text is written to the caller's own stderr while the
 * caller is still stopped in the call, so even `cat` of a hidden key,
 * which exits at once, has said why before it prints its own error. An
 * agent that runs commands inside reads the reason in its tool output.
 *
 * Written only where it cannot harm: the caller's stderr is a pipe, a
 * socket or a plain file (never a terminal, whose screen a program may be
 * drawing, nor /dev/null), open for writing, reached as a copy of the
 * caller's own descriptor (pidfd_getfd: nothing the caller could not
 * write itself, at the offset it would write at), without blocking (a
 * pipe reopened O_NONBLOCK, a socket sent MSG_DONTWAIT): a full pipe
 * drops the line, never stalls the guard. At
 * most INIT_TELL_MAX answers wait at once, each at most INIT_TELL_WAIT_MS,
 * and lines are rate-limited (a bucket), so a flood of refusals costs
 * what it costs without this. */
#include "protocol/ctl.h"
#include "policy/guard.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-reads.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-spawn.h"
#include "daemon/init/init-supervise.h"
#include "daemon/init/init-tell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INIT_TELL_MAX      64     /* answers held at once */
#define INIT_TELL_WAIT_MS  250    /* how long one waits for sboxd */
#define INIT_TELL_TEXT     4096   /* text told for one call, at most */
#define INIT_TELL_BURST    16     /* lines: bucket size */
#define INIT_TELL_RATE     4      /* lines per second */

/* One refused call whose answer waits for sboxd's words. */
struct init_tell_wait {
	json_int_t ticket;            /* 0: a free slot */
	int        lfd, fd, cloexec, err, left;
	uint64_t   notif_id;
	long long  val, deadline;
	pid_t      tgid;
	json_int_t cmd;               /* the command it belongs to */
	json_int_t fs_token;          /* a stand-in's open sboxd holds (its
	                                 fs_done token), not a notification */
	size_t     len;
	char       text[INIT_TELL_TEXT];
};

static struct init_tell_wait init_tell_w[INIT_TELL_MAX];
static double init_tell_tokens = INIT_TELL_BURST;
static long long init_tell_last_ms;

/* Take one line's token from the bucket; 0 when it is empty. */
static int
init_tell_token(void)
{
	long long now = init_msg_now_ms();

	init_tell_tokens += (double)(now - init_tell_last_ms) * INIT_TELL_RATE /
	    1000;
	if (init_tell_tokens > INIT_TELL_BURST)
		init_tell_tokens = INIT_TELL_BURST;
	init_tell_last_ms = now;
	if (init_tell_tokens < 1)
		return 0;
	init_tell_tokens -= 1;
	return 1;
}

/* Write text to tgid's stderr when it is a pipe, a socket or a file open for
 * writing, without blocking. */
static void
init_tell_write(json_int_t cmd, pid_t tgid, const char *text, size_t len)
{
	struct stat st;
	char p[40];
	int pfd, fd, w, fl;

	if ((pfd = (int)syscall(SYS_pidfd_open, tgid, 0)) < 0)
		return;
	fd = (int)syscall(SYS_pidfd_getfd, pfd, 2, 0);
	close(pfd);
	if (fd < 0)
		return;
	fl = fcntl(fd, F_GETFL);
	/* the command's own stderr goes to its client, which tells the
	 * refusal there itself: only a stderr of the command's making */
	if (fstat(fd, &st) == 0 && fl >= 0 && (fl & O_ACCMODE) != O_RDONLY &&
	    !init_spawn_is_stderr(cmd, st.st_dev, st.st_ino)) {
		if (S_ISFIFO(st.st_mode)) {
			/* a description of our own: O_NONBLOCK without
			 * changing the caller's */
			snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
			if ((w = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) >=
			    0) {
				if (write(w, text, len) < 0) {
					/* full, or no reader: dropped */
				}
				close(w);
			}
		} else if (S_ISREG(st.st_mode)) {
			/* a file the caller writes its errors to (Claude
			 * Code's tool output): written as its own write */
			if (write(fd, text, len) < 0) {
				/* full: dropped */
			}
		} else if (S_ISSOCK(st.st_mode)) {
			if (send(fd, text, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
				/* full, or not connected: dropped */
			}
		}
	}
	close(fd);
}

/* Tell what sboxd said and answer the held call. */
static void
init_tell_finish(struct init_tell_wait *w)
{
	if (w->len > 0 && init_tell_token())
		init_tell_write(w->cmd, w->tgid, w->text, w->len);
	if (w->fs_token > 0)
		init_msg_send(ctl_msg("fs_done", "{s:I}", "token", w->fs_token),
		    NULL, 0);
	else
		init_supervise_send(w->lfd, w->notif_id, w->err, w->val, w->fd,
		    w->cloexec);
	w->ticket = 0;
	w->fd = -1;
}

/* Hold a refused call's answer for sboxd's words; 0 held, -1 not. */
int
init_tell_defer(int lfd, uint64_t notif_id, int err, long long val, int fd,
    int cloexec, json_int_t cmd, json_int_t ticket, int reports, pid_t tgid)
{
	int i;

	if (ticket <= 0 || reports <= 0 || tgid <= 0)
		return -1;
	for (i = 0; i < INIT_TELL_MAX; i++)
		if (init_tell_w[i].ticket == 0)
			break;
	if (i == INIT_TELL_MAX)
		return -1; /* a flood: answered at once, untold */
	init_tell_w[i] = (struct init_tell_wait){ .ticket = ticket, .lfd = lfd,
	    .fd = fd, .cloexec = cloexec, .err = err, .left = reports,
	    .notif_id = notif_id, .val = val, .tgid = tgid, .cmd = cmd,
	    .deadline = init_msg_now_ms() + INIT_TELL_WAIT_MS };
	return 0;
}

/* Hold a stand-in's refused open (sboxd holds its answer until fs_done
 * {token}) for sboxd's words; 0 held, -1 not (say fs_done now). */
int
init_tell_defer_fs(json_int_t token, json_int_t cmd, json_int_t ticket,
    int reports, pid_t tgid)
{
	int i;

	if (token <= 0 || ticket <= 0 || reports <= 0 || tgid <= 0)
		return -1;
	for (i = 0; i < INIT_TELL_MAX; i++)
		if (init_tell_w[i].ticket == 0)
			break;
	if (i == INIT_TELL_MAX)
		return -1;
	init_tell_w[i] = (struct init_tell_wait){ .ticket = ticket, .lfd = -1,
	    .fd = -1, .left = reports, .tgid = tgid, .cmd = cmd,
	    .fs_token = token, .deadline = init_msg_now_ms() +
	    INIT_TELL_WAIT_MS };
	return 0;
}

/* Handle fs_read {pid, path, errno, token}: a read the stand-ins refused
 * (sboxd holds the open's answer): report it as a refusal of the reader's
 * command, hold it for the words, then fs_done {token}. The pid is
 * sboxd's reading of the kernel's; the path one of the host's names. */
void
init_tell_fs_read(json_t *msg)
{
	const char *path = init_msg_get_str(msg, "path", PATH_MAX);
	json_t *p = json_object_get(msg, "pid"), *e = json_object_get(msg,
	    "errno"), *t = json_object_get(msg, "token");
	const struct guard_rule *r;
	json_int_t token = json_is_integer(t) ? json_integer_value(t) : 0;
	json_int_t ticket = 0, id;
	pid_t tid, tgid = 0;
	int reports = 0;

	if (path != NULL && json_is_integer(p) && json_integer_value(p) > 1 &&
	    json_integer_value(p) < 1 << 22 && json_is_integer(e) &&
	    (r = init_reads_rule(path)) != NULL) {
		tid = (pid_t)json_integer_value(p);
		id = init_spawn_owner(tid);
		init_state_call_begin();
		init_state_report(id, tid, "read", path,
		    (int)json_integer_value(e), r->rule, NULL);
		ticket = init_state_call_end(&reports, &tgid);
		if (init_tell_defer_fs(token, id, ticket, reports, tgid) == 0)
			return;
	}
	if (token > 0)
		init_msg_send(ctl_msg("fs_done", "{s:I}", "token", token), NULL,
		    0);
}

/* Handle told {ticket, text?}: sboxd's words for one report. */
void
init_tell_told(json_t *msg)
{
	json_t *t = json_object_get(msg, "ticket");
	const char *text = init_msg_get_str(msg, "text", INIT_TELL_TEXT);
	struct init_tell_wait *w = NULL;
	size_t n;
	int i;

	if (!json_is_integer(t) || json_integer_value(t) <= 0)
		return;
	for (i = 0; i < INIT_TELL_MAX; i++)
		if (init_tell_w[i].ticket == json_integer_value(t))
			w = &init_tell_w[i];
	if (w == NULL)
		return; /* answered already (its deadline passed) */
	if (text != NULL && (n = strlen(text)) > 0 &&
	    n < sizeof w->text - w->len) {
		memcpy(w->text + w->len, text, n);
		w->len += n;
	}
	if (--w->left <= 0)
		init_tell_finish(w);
}

/* Milliseconds until the next held answer's deadline (-1: none). */
int
init_tell_timeout(void)
{
	long long now = init_msg_now_ms(), best = -1;
	int i;

	for (i = 0; i < INIT_TELL_MAX; i++)
		if (init_tell_w[i].ticket != 0 && (best < 0 ||
		    init_tell_w[i].deadline < best))
			best = init_tell_w[i].deadline;
	if (best < 0)
		return -1;
	return best <= now ? 0 : (int)(best - now);
}

/* Answer the held calls whose deadline has passed (told what came). */
void
init_tell_expire(void)
{
	long long now = init_msg_now_ms();
	int i;

	for (i = 0; i < INIT_TELL_MAX; i++)
		if (init_tell_w[i].ticket != 0 && init_tell_w[i].deadline <= now)
			init_tell_finish(&init_tell_w[i]);
}
