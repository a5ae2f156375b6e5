/* init-supervise.c: sbox-init's file guard, a seccomp user-notification
 * supervisor. Every command sbox-init forks installs (in the child, before
 * execve) a second filter that notifies the calls that create or change
 * names or open for writing; the listener comes back here over a
 * socketpair. For each notification sbox-init reads the paths once from
 * /proc/PID/mem, resolves them itself component by component (holding
 * descriptors, /proc/self meaning the caller), asks guard_decide, and then
 * PERFORMS the operation on the parent folder's descriptor and answers with
 * its result (an opened file is injected with SECCOMP_IOCTL_NOTIF_ADDFD).
 * Nothing that writes is continued: a path rewritten by another thread
 * after the check changes nothing. Read-only opens are notified too, only
 * to report those a hidden path refuses (init-reads.c: most are continued
 * at once). Notifications are handled one at a time, so the checks
 * of one operation cannot race with another's rename. What it cannot handle
 * safely is refused. The path walking and the operations live in
 * init-walk.c and init-ops.c. */
#include "protocol/ctl.h"
#include "daemon/init/init-dispatch.h"
#include "daemon/init/init-exclude.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-ops.h"
#include "daemon/init/init-reads.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-supervise.h"
#include "daemon/init/init-tell.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"
#include "policy/guard-calls.h"
#include "policy/guard-filter.h"
#include "policy/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define INIT_SV_MAX        1024   /* listeners at once */
#define INIT_SV_BULK_MAX   (4 << 20) /* the guard message's bytes, at most */
#define INIT_SV_ADOPT_MS   30000  /* how long a child may take to send one
                                     (generous: a loaded machine, sanitizers) */
/* The table of calls is policy/guard-calls.c (one line per call). */
static const struct guard_call_line *init_sv_calls;
static size_t init_sv_ncalls;

/* One listener: the command it was made for. */
struct init_sv_listener {
	int        fd;
	json_int_t id;
};

static char init_sv_broken[1200];
static struct sock_filter *init_sv_prog;
static unsigned short init_sv_prog_len;
static struct sock_filter *init_sv_seal;   /* refuses the handoff's flags */
static unsigned short init_sv_seal_len;
static uint32_t init_sv_arch[2];
#define INIT_SV_LINES_MAX 128 /* lines of the table */
static int init_sv_nr[2][INIT_SV_LINES_MAX];
static struct init_sv_listener init_sv_l[INIT_SV_MAX];
static int init_sv_n;
static struct seccomp_notif *init_sv_req;
static struct seccomp_notif_resp *init_sv_resp;

/* Why commands cannot run now, or NULL when they can. */
const char *
init_supervise_unready(void)
{
	if (init_state_get() == 1)
		return NULL;
	if (init_state_get() == 0)
		return "the file guard is not set up yet (no guard message)";
	return init_sv_broken;
}

/* Is the kernel at least major.minor? */
static int
init_sv_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > major || (a == major && b >= minor);
}

/* Read the memfd that came with the guard message into *buf (malloc'd,
 * *len bytes); NULL or a reason. */
static const char *
init_sv_read_bulk(const int *fds, int nfds, char **buf, size_t *len)
{
	struct stat st;
	size_t off = 0;
	ssize_t n;

	*buf = NULL;
	*len = 0;
	if (nfds != 1 || fstat(fds[0], &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > INIT_SV_BULK_MAX)
		return "the guard message did not come with its bytes";
	if ((*buf = malloc((size_t)st.st_size + 1)) == NULL)
		return "out of memory";
	while (off < (size_t)st.st_size) {
		n = pread(fds[0], *buf + off, (size_t)st.st_size - off,
		    (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(*buf);
			*buf = NULL;
			return "the guard message's bytes cannot be read";
		}
		off += (size_t)n;
	}
	*len = off;
	return NULL;
}

/* Take the notify filter and its seal that sboxd built for this spec
 * (policy/guard-filter.c): the guard message's "filter" {exclude, reads,
 * notify, seal} gives their sizes, their bytes follow the spec's bulk in
 * buf (len bytes in all); then map the table's calls to this
 * architecture's numbers and its compat one's. NULL or a reason. */
static const char *
init_sv_take(json_t *msg, const char *buf, size_t len)
{
	json_t *f = json_object_get(msg, "filter");
	json_int_t n1, n2, nf, ns;
	int exclude, reads, standins = 0;
	size_t a, i;

	init_sv_calls = guard_calls(&init_sv_ncalls);
	if (init_sv_ncalls > INIT_SV_LINES_MAX)
		return "the table of calls is too long";
	/* built for this spec: execve notified when it has an `exclude`
	 * list, read-only opens when it has hidden rules */
	if (f == NULL || json_unpack(f, "{s:b, s:b, s?b, s:I, s:I !}",
	    "exclude", &exclude, "reads", &reads, "standins", &standins,
	    "notify", &nf, "seal", &ns) < 0)
		return "the guard message has no filter";
	/* stand-ins: reads are the kernel's, refusals come as fs_read */
	if (exclude != (init_state_guard()->exclude != NULL) ||
	    reads != (init_state_guard()->n_rules != 0 && !standins))
		return "the guard message's filter was built for another spec";
	init_state_set_standins(standins);
	/* (guard_spec_from_msg checked bulk against len) */
	if (json_unpack(json_object_get(msg, "bulk"), "[II]", &n1, &n2) < 0 ||
	    nf < 0 || ns < 0 || (size_t)nf > len ||
	    (size_t)ns > len - (size_t)nf ||
	    (size_t)(n1 + n2) != len - (size_t)nf - (size_t)ns ||
	    guard_filter_copy(buf + n1 + n2, (size_t)nf, &init_sv_prog,
	    &init_sv_prog_len) < 0 || guard_filter_copy(buf + n1 + n2 + nf,
	    (size_t)ns, &init_sv_seal, &init_sv_seal_len) < 0)
		return "the guard message's filter is not whole BPF programs";
	init_sv_arch[0] = seccomp_arch_native();
#if defined(__x86_64__)
	init_sv_arch[1] = SCMP_ARCH_X86;
#elif defined(__aarch64__)
	init_sv_arch[1] = SCMP_ARCH_ARM;
#endif
	for (a = 0; a < 2; a++)
		for (i = 0; i < init_sv_ncalls; i++)
			init_sv_nr[a][i] = init_sv_arch[a] == 0 ||
			    init_sv_calls[i].call < 0 ? -1 :
			    seccomp_syscall_resolve_name_arch(init_sv_arch[a],
			    init_sv_calls[i].name);
	return NULL;
}

/* Handle guard {roots, home, bulk, missing, supervise, filter...} and its
 * bytes (fds: the memfd): keep the spec, take the filters; reply guarded
 * {} or error {req: null}. */
void
init_supervise_guard(json_t *msg, const int *fds, int nfds)
{
	struct seccomp_notif_sizes sz;
	sbox_error err = { 0 };
	const char *why = NULL;
	json_int_t n1 = 0, n2 = 0;
	char *buf = NULL;
	size_t len = 0;

	if (init_state_get() != 0) {
		init_msg_send_error(NULL, EINVAL, "guard: already set up");
		return;
	}
	/* one form only: its bulk in the memfd (the JSON form of the spec
	 * is refused here: it would be a second way in) */
	if (json_unpack(json_object_get(msg, "bulk"), "[II]", &n1, &n2) < 0)
		why = "the guard message has no bulk";
	else if ((why = init_sv_read_bulk(fds, nfds, &buf, &len)) != NULL)
		;
	else if (guard_spec_from_msg(init_state_guard(), msg, buf, len,
	    &err) < 0)
		why = err.message;
	else if (init_state_guard()->supervise &&
	    init_state_guard()->roots[0] != NULL) {
		if (!init_sv_kernel_at_least(5, 19))
			why = "the file guard needs Linux 5.19 or later "
			    "(seccomp user notification with ADDFD_FLAG_SEND "
			    "and WAIT_KILLABLE_RECV)";
		else if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0,
		    &sz) < 0)
			why = "seccomp user notification is not available";
		else if ((why = init_sv_take(msg, buf, len)) == NULL) {
			init_sv_req = calloc(1, sz.seccomp_notif >
			    sizeof *init_sv_req ? sz.seccomp_notif :
			    sizeof *init_sv_req);
			init_sv_resp = calloc(1, sz.seccomp_notif_resp >
			    sizeof *init_sv_resp ? sz.seccomp_notif_resp :
			    sizeof *init_sv_resp);
			if (init_sv_req == NULL || init_sv_resp == NULL)
				why = "out of memory";
		}
	} else {
		init_state_guard()->supervise = 0;
		/* nothing follows the bulk without a filter */
		if ((size_t)(n1 + n2) != len)
			why = "the guard message's bytes are not its bulk";
	}
	free(buf);
	if (why == NULL)
		why = init_walk_init();
	if (why != NULL) {
		init_state_set(-1);
		snprintf(init_sv_broken, sizeof init_sv_broken,
		    "the file guard cannot be set up: %s", why);
		init_msg_send_error(NULL, EPERM, "%s", init_sv_broken);
		return;
	}
	init_state_set(1);
	init_msg_send(ctl_msg("guarded", "{s:b}", "supervise",
	    init_state_guard()->supervise), NULL, 0);
}

/* Handle guard_protect: more protected paths; a message that cannot be
 * applied breaks the guard, so no command runs without them. */
void
init_supervise_protect(json_t *msg)
{
	sbox_error err = { 0 };

	if (init_state_get() != 1)
		return;	/* no guard, or already broken: commands are refused */
	if (guard_spec_add_missing(init_state_guard(), json_object_get(msg,
	    "missing"), &err) < 0) {
		init_state_set(-1);
		snprintf(init_sv_broken, sizeof init_sv_broken, "the file guard "
		    "cannot protect what git's config names: %s", err.message);
		init_msg_send_error(NULL, EPERM, "%s", init_sv_broken);
	}
}

/* In the child: install the notify filter and send its listener through
 * sock; 0 or an errno. */
int
init_supervise_child(int sock)
{
	struct sock_fprog prog;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh;
	struct cmsghdr *cm;
	struct iovec iov;
	char byte = 'L';
	int fd, e;

	if (init_state_get() != 1)
		return EPERM;
	if (!init_state_guard()->supervise)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	prog.len = init_sv_prog_len;
	prog.filter = init_sv_prog;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0)
		return errno;
	memset(&mh, 0, sizeof mh);
	memset(cbuf, 0, sizeof cbuf);
	iov.iov_base = &byte;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	e = sendmsg(sock, &mh, GUARD_FILTER_HANDOFF) == 1 ? 0 :
	    (errno ? errno : EIO);
	close(fd);
	if (e != 0)
		return e;
	prog.len = init_sv_seal_len;
	prog.filter = init_sv_seal;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0 ?
	    errno : 0;
}

/* In sbox-init after fork: take the child's listener (waits at most a few
 * seconds); 0, or -1 when none came (the child failed or hung: killed). */
int
init_supervise_adopt(int sock, pid_t pid, json_int_t id)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)], byte;
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	struct msghdr mh;
	struct cmsghdr *cm;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	int fd = -1, rc;

	if (init_state_get() != 1 || !init_state_guard()->supervise)
		return 0;
	do
		rc = poll(&pfd, 1, INIT_SV_ADOPT_MS);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		kill(pid, SIGKILL);
		return -1;
	}
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != 1)
		return -1; /* the child failed before: its pipe says why */
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)) && fd < 0)
			memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	if (fd < 0 || init_sv_n >= INIT_SV_MAX) {
		if (fd >= 0)
			close(fd);
		kill(pid, SIGKILL);
		return -1;
	}
	/* Linux 6.6+: the caller and sbox-init hand the CPU to each other,
	 * which shortens a notification's round trip (older kernels: EINVAL,
	 * as before) */
	ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	init_sv_l[init_sv_n].fd = fd;
	init_sv_l[init_sv_n].id = id;
	init_sv_n++;
	return 0;
}

/* Fill pfd[] with the listeners; returns how many (<= max). */
int
init_supervise_pollfds(struct pollfd *pfd, int max)
{
	int i;

	for (i = 0; i < init_sv_n && i < max; i++) {
		pfd[i].fd = init_sv_l[i].fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	return i;
}

/* Answer notification id of listener lfd: with fd injected (err 0, fd >= 0,
 * which it closes), or with err (0: success, value val). */
void
init_supervise_send(int lfd, uint64_t id, int err, long long val, int fd,
    int cloexec)
{
	struct seccomp_notif_addfd add;

	if (err == 0 && fd >= 0) {
		memset(&add, 0, sizeof add);
		add.id = id;
		add.flags = SECCOMP_ADDFD_FLAG_SEND;
		add.srcfd = (uint32_t)fd;
		add.newfd_flags = cloexec ? O_CLOEXEC : 0;
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 &&
		    errno != ENOENT && errno != EINPROGRESS)
			init_supervise_send(lfd, id, errno == EMFILE ? EMFILE :
			    EPERM, 0, -1, 0);
		close(fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	memset(init_sv_resp, 0, sizeof *init_sv_resp);
	init_sv_resp->id = id;
	init_sv_resp->error = err ? -err : 0;
	init_sv_resp->val = err ? 0 : val;
	ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, init_sv_resp);
}

/* The report's name of a call's operation. */
static const char *
init_sv_op(int sc)
{
	switch (sc) {
	case SV_OPEN: case SV_OPENAT: case SV_TRUNCATE: case SV_TRUNCATE64:
		return "write";
	case SV_CONNECT: case SV_SENDTO: case SV_SENDMSG: case SV_SENDMMSG:
		return "connect";
	case SV_UNLINK: case SV_UNLINKAT: case SV_RMDIR:
		return "remove";
	case SV_CHOWN: case SV_FCHOWN: case SV_LCHOWN: case SV_FCHOWNAT:
	case SV_CHOWN32: case SV_LCHOWN32: case SV_FCHOWN32:
		return "chown";
	case SV_UTIME: case SV_UTIMES: case SV_FUTIMESAT: case SV_UTIMENSAT:
	case SV_UTIMENSAT64:
		return "utime";
	case SV_REMOVEXATTR: case SV_LREMOVEXATTR: case SV_FREMOVEXATTR:
		return "xattr";
	case SV_RENAME: case SV_RENAMEAT: case SV_RENAMEAT2:
		return "rename";
	case SV_LINK: case SV_LINKAT:
		return "link";
	case SV_CHMOD: case SV_FCHMOD: case SV_FCHMODAT: case SV_FCHMODAT2:
		return "chmod";
	}
	return "create";
}

/* THE ONE PLACE a decision returns to the kernel (but for execve, which
 * init-exclude.c answers). fd >= 0: the opened file to inject. err: 0, an
 * errno the operation itself gave, or one of SV_ANSWERED (a helper
 * answers), SV_CONTINUE (a read-only open only: its flags are checked
 * here again).
 * Anything else -- SV_UNDECIDED, an unknown value, SV_CONTINUE for a call
 * that may write -- is refused with EPERM and reported: no code path
 * before this one can leave a call undecided. */
static void
init_sv_reply(struct init_sv_call *call, int err, int fd)
{
	char path[PATH_MAX];
	const char *why;
	json_int_t ticket;
	pid_t tgid;
	int reports;

	if (err == SV_ANSWERED) {
		if (fd >= 0)
			close(fd);
		init_state_call_end(&reports, &tgid);
		return;
	}
	if (err == SV_CONTINUE && call->reads && (call->sc == SV_OPEN ||
	    call->sc == SV_OPENAT) && !((uint32_t)call->data->args[
	    call->sc == SV_OPEN ? 1 : 2] & (O_ACCMODE | O_CREAT | O_TRUNC))) {
		if (fd >= 0)
			close(fd);
		init_state_call_end(&reports, &tgid);
		memset(init_sv_resp, 0, sizeof *init_sv_resp);
		init_sv_resp->id = call->notif_id;
		init_sv_resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(call->lfd, SECCOMP_IOCTL_NOTIF_SEND, init_sv_resp);
		return;
	}
	if (err < 0 || err >= SV_ERRNO_END) {
		if (fd >= 0)
			close(fd);
		fd = -1;
		why = init_state_undecided_why(path, sizeof path);
		if (path[0] != '/' && call->where != NULL &&
		    call->where[0] == '/')
			snprintf(path, sizeof path, "%s", call->where);
		init_state_report(call->id, call->tid, init_sv_op(call->sc),
		    path[0] == '/' ? path : "/", EPERM, PLAN_RULE_RUNS_LATER,
		    why);
		err = EPERM;
	}
	/* a call the guard reported: answered once sboxd has worded it for
	 * the caller (init-tell.c) */
	ticket = init_state_call_end(&reports, &tgid);
	if (ticket != 0 && init_tell_defer(call->lfd, call->notif_id, err,
	    call->val, fd, call->cloexec, call->id, ticket, reports, tgid) == 0)
		return;
	init_supervise_send(call->lfd, call->notif_id, err, call->val, fd,
	    call->cloexec);
}

/* Which of our calls a notification is (-1 when none). */
static int
init_sv_which(const struct seccomp_data *d)
{
	size_t a, i;

	for (a = 0; a < 2; a++) {
		if (init_sv_arch[a] == 0 || d->arch != init_sv_arch[a])
			continue;
		for (i = 0; i < init_sv_ncalls; i++)
			if (init_sv_nr[a][i] == d->nr)
				return init_sv_calls[i].call;
	}
	return -1;
}

/* Receive and handle one notification of listener i. */
static void
init_sv_one(int i)
{
	struct init_sv_call call;
	int lfd = init_sv_l[i].fd, sc, fd, err;
	char where[PATH_MAX + NAME_MAX + 2];

	memset(init_sv_req, 0, sizeof *init_sv_req);
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, init_sv_req) < 0)
		return; /* the caller is gone (ENOENT) or nothing to read */
	memset(&call, 0, sizeof call);
	sc = init_sv_which(&init_sv_req->data);
	call.sc = sc;
	call.tid = (pid_t)init_sv_req->pid;
	call.id = init_sv_l[i].id;
	call.notif_id = init_sv_req->id;
	call.lfd = lfd;
	call.data = &init_sv_req->data;
	if (sc < 0) {
		init_state_call_begin();
		init_sv_reply(&call, init_state_undecided(NULL,
		    "a call the file guard does not know"), -1);
		return;
	}
	if (sc == SV_EXECVE || sc == SV_EXECVEAT) {
		init_exclude_exec(&call);
		return;
	}
	fd = -1;
	where[0] = '\0';
	init_state_call_begin();
	if ((err = init_reads_call(&call, &fd)) < 0) {
		call.where = where;
		call.wherelen = sizeof where;
		err = init_dispatch_call(&call, &fd);
	} else
		call.where = NULL; /* init-reads.c's own, gone now */
	init_sv_reply(&call, err, fd);
}

/* Handle what poll reported on the listeners. */
void
init_supervise_events(struct pollfd *pfd, int n)
{
	int i, j;

	for (i = n - 1; i >= 0; i--) {
		if (pfd[i].revents == 0)
			continue;
		for (j = 0; j < init_sv_n; j++)
			if (init_sv_l[j].fd == pfd[i].fd)
				break;
		if (j == init_sv_n)
			continue;
		if (pfd[i].revents & POLLIN) {
			/* one notification per listener and wake-up: the
			 * main loop's next poll returns at once when more
			 * wait, and sbox-init sleeps right after answering
			 * when none does (no poll of its own here: the
			 * caller, woken on this CPU, runs only then) */
			init_sv_one(j);
			continue;
		}
		if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* no process uses this filter any more */
			close(init_sv_l[j].fd);
			init_sv_l[j] = init_sv_l[--init_sv_n];
		}
	}
}
