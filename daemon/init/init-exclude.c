/* init-exclude.c: programs that match the profile's `exclude` patterns,
 * started anywhere inside a command. With patterns set, the file guard's
 * filter also notifies execve and execveat. sbox-init reads the program and
 * its arguments; no match: the call continues. A match: the call is sent
 * to the exclusion shim instead. sbox-init writes the shim's short path
 * (INIT_EX_SHIM, a link to sbox-init itself) over the program's path in
 * the caller's memory, hands the caller one end of a socketpair and lets
 * the execve continue; the shim (sbox-init in shim mode, same pid, same
 * stdio) sends its stdin, stdout and stderr back over the socket, and
 * sbox-init asks sboxd to run the program outside the sandbox (`exclude`
 * message): sboxd asks for approval like any run outside, runs it on the
 * host with those three descriptors, and answers `exclude_done` with the
 * exit status (or the refusal), which the shim exits with. What the person
 * approves is what sbox-init read at the execve (argv, program, folder),
 * never what the shim says. The program is the file the kernel was asked
 * to run, opened here as the kernel would find it and sent by its real
 * path with its device and inode; argv[0] is only shown, never used to
 * find the program. The bytes are not given back: after a plain
 * exec the old memory is gone, and a caller that shares its memory with its
 * parent (vfork, posix_spawn) passes a path built for that one call; giving
 * them back later could write into memory the parent has reused. */
#include "protocol/ctl.h"
#include "daemon/init/init-exclude.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"
#include "policy/exclude.h"
#include "policy/render-bwrap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define INIT_EX_SHIM     RENDER_BWRAP_SHIM_PATH
#define INIT_EX_MAX      32      /* exclusions under way at once */
#define INIT_EX_ARGS     256     /* arguments read at most */
#define INIT_EX_BYTES    65536   /* bytes of arguments read at most */
#define INIT_EX_HELLO_MS 30000   /* a shim that never says hello is dropped */

enum init_ex_state { INIT_EX_HELLO, INIT_EX_ASKED };

/* One program on its way outside. */
struct init_ex {
	int                sock;     /* our end; -1 = free slot */
	enum init_ex_state state;
	json_int_t         xid;
	json_int_t         id;       /* the command it was started by */
	pid_t              tgid;
	long long          since_ms;
	json_t            *argv;
	char              *program, *cwd, *pattern;
	unsigned long long dev, ino;  /* the program's, at the execve */
	int                umask;     /* the caller's */
	ino_t              peer;      /* the caller's end (its inode) */
};

static struct init_ex init_ex[INIT_EX_MAX];
static json_int_t init_ex_next_xid = 1;
static int init_ex_inited;

/* Mark every slot free once. */
static void
init_ex_init(void)
{
	size_t i;

	if (init_ex_inited)
		return;
	for (i = 0; i < INIT_EX_MAX; i++)
		init_ex[i].sock = -1;
	init_ex_inited = 1;
}

/* Free a slot. */
static void
init_ex_free(struct init_ex *e)
{
	if (e->sock >= 0)
		close(e->sock);
	e->sock = -1;
	json_decref(e->argv);
	e->argv = NULL;
	free(e->program);
	free(e->cwd);
	free(e->pattern);
	e->program = e->cwd = e->pattern = NULL;
}

/* A free slot (dropping shims that never came), or NULL. */
static struct init_ex *
init_ex_slot(void)
{
	long long now = init_msg_now_ms();
	size_t i;

	init_ex_init();
	for (i = 0; i < INIT_EX_MAX; i++)
		if (init_ex[i].sock >= 0 && init_ex[i].state == INIT_EX_HELLO &&
		    now - init_ex[i].since_ms > INIT_EX_HELLO_MS)
			init_ex_free(&init_ex[i]);
	for (i = 0; i < INIT_EX_MAX; i++)
		if (init_ex[i].sock < 0)
			return &init_ex[i];
	return NULL;
}

/* Answer the notification: continue it (err 0) or fail it with err. */
static void
init_ex_answer(struct init_sv_call *call, int err, int cont)
{
	struct seccomp_notif_resp r;

	memset(&r, 0, sizeof r);
	r.id = call->notif_id;
	if (cont)
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else
		r.error = -err;
	ioctl(call->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

/* Read the caller's argv (an array of pointers at addr) into a JSON array
 * of strings; NULL when it cannot be read. */
static json_t *
init_ex_argv(struct init_walk_caller *t, uint64_t addr, int wide)
{
	static char buf[CTL_PATH_MAX];
	char clean[CTL_PATH_MAX + 8];
	size_t i, total = 0, w = wide ? 8 : 4;
	json_t *a = json_array();
	uint64_t p;

	for (i = 0; a != NULL && addr != 0 && i < INIT_EX_ARGS; i++) {
		uint32_t p32;
		p = 0;
		if (wide ? pread(t->mem, &p, w, (off_t)(addr + i * w)) !=
		    (ssize_t)w : pread(t->mem, &p32, w, (off_t)(addr + i * w)) !=
		    (ssize_t)w)
			goto bad;
		if (!wide)
			p = p32;
		if (p == 0)
			return a;
		if (init_walk_read_str(t, p, buf, sizeof buf) != 0)
			goto bad;
		if ((total += strlen(buf)) > INIT_EX_BYTES)
			return a; /* matched on what was read */
		init_msg_utf8(clean, buf, sizeof clean);
		json_array_append_new(a, json_string(clean));
	}
	return a;
bad:
	json_decref(a);
	return NULL;
}

/* argv as a NULL-terminated vector borrowing from a (NULL on OOM). */
static char **
init_ex_vec(json_t *a)
{
	size_t i, n = json_array_size(a);
	char **v = calloc(n + 1, sizeof *v);

	for (i = 0; v != NULL && i < n; i++)
		v[i] = (char *)json_string_value(json_array_get(a, i));
	return v;
}

/* Refuse the execve of a match that cannot be sent outside, and say so. */
static void
init_ex_refuse(struct init_sv_call *call, const char *program, int err,
    const char *why)
{
	init_ex_answer(call, err, 0);
	init_state_report(call->id, call->tid, "exec", program, EACCES,
	    "exclude", why);
}

/* Open the file an execve would run, as the kernel finds it for the
 * caller (an absolute path; relative to its folder, or to the execveat's
 * folder descriptor; the final symlink followed unless AT_SYMLINK_NOFOLLOW)
 * and fill prog with its real path (the same inside as in sbox-init: one
 * mount namespace), *st with its status. 1 when it is an executable
 * regular file, 0 when not (a PATH search tries names that do not exist:
 * the kernel fails it as it would). */
static int
init_ex_program(struct init_sv_call *call, int at, int flags, const char *path,
    char *prog, size_t len, struct stat *st)
{
	char base[64], link[64];
	const __u64 *a = call->data->args;
	int dfd = AT_FDCWD, fd, ok;
	ssize_t n;

	if (path[0] == '\0' && !(at && (flags & AT_EMPTY_PATH)))
		return 0;
	if (path[0] == '\0') {
		/* the open file itself (fexecve) */
		snprintf(base, sizeof base, "/proc/%d/fd/%d", (int)call->tid,
		    (int)(uint32_t)a[0]);
		fd = open(base, O_PATH | O_CLOEXEC);
		goto opened;
	}
	if (path[0] != '/') {
		if (at && (int)(uint32_t)a[0] != AT_FDCWD)
			snprintf(base, sizeof base, "/proc/%d/fd/%d",
			    (int)call->tid, (int)(uint32_t)a[0]);
		else
			snprintf(base, sizeof base, "/proc/%d/cwd", (int)call->tid);
		if ((dfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return 0;
	}
	fd = openat(dfd, path, O_PATH | O_CLOEXEC |
	    ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0));
	if (dfd >= 0)
		close(dfd);
opened:
	if (fd < 0)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ok = fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
	    access(link, X_OK) == 0 &&
	    (n = readlink(link, prog, len - 1)) > 0 && prog[0] == '/';
	if (ok)
		prog[n] = '\0';
	close(fd);
	return ok;
}

/* Hand the caller one end of a socketpair (kept across exec); our end in
 * *ours, the inode of the caller's in *peer. 0 or an errno. */
static int
init_ex_give_socket(struct init_sv_call *call, int *ours, ino_t *peer)
{
	struct seccomp_notif_addfd add;
	struct stat st;
	int sv[2], e = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	*peer = fstat(sv[1], &st) == 0 ? st.st_ino : 0;
	memset(&add, 0, sizeof add);
	add.id = call->notif_id;
	add.srcfd = (uint32_t)sv[1];
	add.newfd_flags = 0;
	if (ioctl(call->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0)
		e = errno ? errno : EPERM;
	close(sv[1]);
	if (e != 0) {
		close(sv[0]);
		return e;
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	e = 1;
	setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &e, sizeof e);
	*ours = sv[0];
	return 0;
}

/* An execve or execveat: continue it, or send a match to the shim. */
void
init_exclude_exec(struct init_sv_call *call)
{
	static char path[CTL_PATH_MAX], cwd[CTL_PATH_MAX], prog[CTL_PATH_MAX];
	const struct guard_spec *spec = init_state_spec();
	const __u64 *a = call->data->args;
	struct init_walk_caller t = { .call = call, .tid = call->tid,
	    .mem = -1 };
	int at = call->sc == SV_EXECVEAT, wide, e, flags = 0;
	const char *pattern;
	struct init_ex *x;
	char p[40], **vec;
	struct stat st;
	json_t *argv;
	ssize_t n;

	if (spec == NULL || spec->exclude == NULL) {
		init_ex_answer(call, 0, 1);
		return;
	}
	wide = call->data->arch == AUDIT_ARCH_X86_64 ||
	    call->data->arch == AUDIT_ARCH_AARCH64;
	snprintf(p, sizeof p, "/proc/%d/mem", (int)call->tid);
	if ((t.mem = open(p, O_RDWR | O_CLOEXEC)) < 0) {
		/* not readable (sbox-init's own child before its first exec,
		 * or a process that made itself undumpable): it stays in the
		 * sandbox, which an exclusion never needs to loosen */
		init_ex_answer(call, 0, 1);
		return;
	}
	if (at)
		flags = (int)a[4];
	if (init_walk_read_str(&t, at ? a[1] : a[0], path, sizeof path) != 0 ||
	    (argv = init_ex_argv(&t, at ? a[2] : a[1], wide)) == NULL) {
		close(t.mem);
		init_ex_answer(call, EFAULT, 0);
		return;
	}
	/* the folder it was started in (shown), and the file the kernel
	 * was asked to run, by its real path: what runs outside is that
	 * file, never a name looked up again from argv[0] */
	snprintf(p, sizeof p, "/proc/%d/cwd", (int)call->tid);
	if ((n = readlink(p, cwd, sizeof cwd - 1)) < 0)
		n = 0;
	cwd[n] = '\0';
	if (!init_ex_program(call, at, flags, path, prog, sizeof prog, &st)) {
		/* the kernel fails it as it would (a PATH search goes on) */
		json_decref(argv);
		close(t.mem);
		init_ex_answer(call, 0, 1);
		return;
	}
	vec = init_ex_vec(argv);
	pattern = vec != NULL ? exclude_match(spec->exclude, vec,
	    path[0] != '\0' ? path : NULL) : NULL;
	free(vec);
	if (pattern == NULL || !init_walk_valid(&t)) {
		json_decref(argv);
		close(t.mem);
		init_ex_answer(call, 0, 1);
		return;
	}
	/* a match: it may only run outside, through approval */
	if (strlen(path) + 1 < sizeof INIT_EX_SHIM || (flags & AT_EMPTY_PATH)) {
		init_ex_refuse(call, prog, EACCES, "matches an exclude pattern, "
		    "but was started in a way sbox cannot send outside (an "
		    "open file or a very short path): run it by its full path");
		goto out;
	}
	if ((x = init_ex_slot()) == NULL) {
		init_ex_refuse(call, prog, EAGAIN, "matches an exclude pattern; "
		    "too many programs are waiting to run outside");
		goto out;
	}
	if (pwrite(t.mem, INIT_EX_SHIM, sizeof INIT_EX_SHIM, (off_t)(at ? a[1] :
	    a[0])) != (ssize_t)sizeof INIT_EX_SHIM) {
		init_ex_refuse(call, prog, EACCES, "matches an exclude pattern, "
		    "but sbox could not send it outside (its path is not "
		    "writable memory)");
		goto out;
	}
	if ((e = init_ex_give_socket(call, &x->sock, &x->peer)) != 0) {
		/* the caller's path is the shim's now: let it fail */
		init_ex_refuse(call, prog, e == EMFILE ? EMFILE : EACCES,
		    "matches an exclude pattern, but sbox could not send it "
		    "outside");
		goto out;
	}
	x->state = INIT_EX_HELLO;
	x->xid = init_ex_next_xid++;
	x->id = call->id;
	x->since_ms = init_msg_now_ms();
	x->argv = argv;
	argv = NULL;
	x->program = strdup(prog);
	x->cwd = strdup(cwd);
	x->pattern = strdup(pattern);
	x->dev = (unsigned long long)st.st_dev;
	x->ino = (unsigned long long)st.st_ino;
	x->tgid = 0;
	x->umask = 022;
	if (init_walk_status(&t) == 0) {
		x->tgid = t.tgid;
		x->umask = (int)t.umask;
	}
	if (x->program == NULL || x->cwd == NULL || x->pattern == NULL ||
	    x->tgid <= 0) {
		init_ex_free(x);
		init_ex_answer(call, ENOMEM, 0);
		goto out;
	}
	init_ex_answer(call, 0, 1);
out:
	json_decref(argv);
	if (t.mem >= 0)
		close(t.mem);
}

/* Fill pfd[] with the shims' sockets; returns how many (<= max). */
int
init_exclude_pollfds(struct pollfd *pfd, int max)
{
	int i, n = 0;

	init_ex_init();
	for (i = 0; i < INIT_EX_MAX && n < max; i++) {
		if (init_ex[i].sock < 0)
			continue;
		pfd[n].fd = init_ex[i].sock;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	return n;
}

static int init_ex_ask(struct init_ex *x, int *fds);

/* Take the shim's hello: its three descriptors; 0 or -1 (drop it). */
static int
init_ex_hello(struct init_ex *x)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 3) +
	    CMSG_SPACE(sizeof(struct ucred))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh;
	struct cmsghdr *cm;
	struct ucred cr = { .pid = 0 };
	int fds[3] = { -1, -1, -1 }, nf = 0, i;
	ssize_t n;

	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	n = recvmsg(x->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	for (cm = CMSG_FIRSTHDR(&mh); n > 0 && cm != NULL;
	    cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS &&
		    cm->cmsg_len == CMSG_LEN(sizeof cr))
			memcpy(&cr, CMSG_DATA(cm), sizeof cr);
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; i < (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		    i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
			if (nf < 3)
				fds[nf++] = fd;
			else
				close(fd);
		}
	}
	/* the shim is the process that made the execve (same pid; the kernel
	 * says who sent the hello: SO_PASSCRED) */
	if (n != 1 || byte != 'H' || nf != 3 || (mh.msg_flags & MSG_CTRUNC) ||
	    cr.pid != x->tgid) {
		for (i = 0; i < nf; i++)
			close(fds[i]);
		return -1;
	}
	return init_ex_ask(x, fds);
}

/* The shim's hello came: ask sboxd to run the program outside with the
 * shim's three descriptors (closed here). */
static int
init_ex_ask(struct init_ex *x, int *fds)
{
	int i;

	init_msg_send(ctl_msg("exclude",
	    "{s:I,s:I,s:i,s:O,s:s,s:s,s:s,s:I,s:I,s:i}",
	    "id", x->id, "xid", x->xid, "pid", (int)x->tgid, "argv", x->argv,
	    "program", x->program, "cwd", x->cwd, "pattern", x->pattern,
	    "dev", (json_int_t)x->dev, "ino", (json_int_t)x->ino, "umask",
	    x->umask), fds, 3);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	x->state = INIT_EX_ASKED;
	return 0;
}

/* Handle what poll reported on the shims' sockets. */
void
init_exclude_events(struct pollfd *pfd, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		for (j = 0; j < INIT_EX_MAX; j++)
			if (init_ex[j].sock == pfd[i].fd)
				break;
		if (j == INIT_EX_MAX)
			continue;
		if ((pfd[i].revents & POLLIN) && init_ex[j].state ==
		    INIT_EX_HELLO) {
			if (init_ex_hello(&init_ex[j]) < 0)
				init_ex_free(&init_ex[j]);
			continue;
		}
		if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL | POLLIN)) {
			/* the shim is gone (or talks out of turn) */
			if (init_ex[j].state == INIT_EX_ASKED)
				init_msg_send(ctl_msg("exclude_cancel", "{s:I}",
				    "xid", init_ex[j].xid), NULL, 0);
			init_ex_free(&init_ex[j]);
		}
	}
}

/* The shim's hello as the file guard's sendmsg saw it (the guard performs
 * a notified sendmsg itself, so the kernel's SO_PASSCRED would name
 * sbox-init, not the shim): sock is our copy of the caller's socket, tid
 * the notifying thread (the kernel's word for who sent it), data and fds
 * the message (the fds are ours to keep only on 0). -1 when sock is not a
 * shim's; else 0, or EPERM (the slot is dropped). */
int
init_exclude_hello_from(int sock, pid_t tid, const char *data, size_t len,
    const int *fds, int nfds)
{
	struct stat st;
	int mine[3], j, k;

	if (fstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -1;
	for (j = 0; j < INIT_EX_MAX; j++)
		if (init_ex[j].sock >= 0 && init_ex[j].peer == st.st_ino)
			break;
	if (j == INIT_EX_MAX)
		return -1;
	if (init_ex[j].state != INIT_EX_HELLO || tid != init_ex[j].tgid ||
	    len != 1 || data[0] != 'H' || nfds != 3) {
		init_ex_free(&init_ex[j]);
		return EPERM;
	}
	for (k = 0; k < 3; k++)
		if ((mine[k] = fcntl(fds[k], F_DUPFD_CLOEXEC, 3)) < 0) {
			while (k-- > 0)
				close(mine[k]);
			init_ex_free(&init_ex[j]);
			return EPERM;
		}
	(void)init_ex_ask(&init_ex[j], mine);
	return 0;
}

/* exclude_done {xid, code, message}: tell the shim how to end. */
void
init_exclude_done(json_t *msg)
{
	json_t *xid = json_object_get(msg, "xid");
	json_t *code = json_object_get(msg, "code");
	const char *m = init_msg_get_str(msg, "message", 4000);
	char buf[4 + 4000 + 1];
	int32_t c;
	size_t len = 0;
	int j;

	if (!json_is_integer(xid) || !json_is_integer(code))
		return;
	init_ex_init();
	for (j = 0; j < INIT_EX_MAX; j++)
		if (init_ex[j].sock >= 0 && init_ex[j].state == INIT_EX_ASKED &&
		    init_ex[j].xid == json_integer_value(xid))
			break;
	if (j == INIT_EX_MAX)
		return;
	c = (int32_t)json_integer_value(code);
	if (c < 0 || c > 255)
		c = 126;
	memcpy(buf, &c, 4);
	if (m != NULL) {
		len = strlen(m);
		memcpy(buf + 4, m, len);
	}
	if (send(init_ex[j].sock, buf, 4 + len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* the shim is gone: nothing to tell */
	}
	init_ex_free(&init_ex[j]);
}

/* The shim's socket to sbox-init: a SEQPACKET socket whose peer is pid 1;
 * -1 when there is none. */
static int
init_ex_find_socket(void)
{
	struct ucred cr;
	socklen_t cl;
	struct dirent *d;
	int fd, found = -1, type;
	DIR *dir;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return -1;
	while (found < 0 && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		fd = atoi(d->d_name);
		if (fd == dirfd(dir))
			continue;
		cl = sizeof type;
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &cl) < 0 ||
		    type != SOCK_SEQPACKET)
			continue;
		cl = sizeof cr;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 &&
		    cr.pid == 1)
			found = fd;
	}
	closedir(dir);
	return found;
}

/* The shim: hand stdin, stdout and stderr to sbox-init, wait for the run
 * outside, exit with its status. */
int
init_exclude_shim(const char *self)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 3)], byte = 'H', buf[4 + 4001];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh;
	struct cmsghdr *cm;
	int fds[3], i, sock, nul = -1;
	int32_t code;
	ssize_t n;

	if ((sock = init_ex_find_socket()) < 0) {
		fprintf(stderr, "%s: must run as pid 1 of a sandbox (started by "
		    "sboxd)\n", self);
		return 126;
	}
	fcntl(sock, F_SETFD, FD_CLOEXEC);
	for (i = 0; i < 3; i++) {
		fds[i] = i;
		if (fcntl(i, F_GETFD) < 0) {
			if (nul < 0)
				nul = open("/dev/null", O_RDWR | O_CLOEXEC);
			fds[i] = nul;
		}
	}
	memset(&mh, 0, sizeof mh);
	memset(cbuf, 0, sizeof cbuf);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(cm), fds, sizeof fds);
	if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0 ||
	    sendmsg(sock, &mh, MSG_NOSIGNAL) != 1) {
		fprintf(stderr, "sbox: could not hand this program to sbox to "
		    "run outside the sandbox\n");
		return 126;
	}
	do
		n = recv(sock, buf, sizeof buf - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 4) {
		fprintf(stderr, "sbox: the sandbox ended before this program "
		    "could run outside it\n");
		return 126;
	}
	memcpy(&code, buf, 4);
	buf[n] = '\0';
	if (n > 4) {
		fprintf(stderr, "%s\n", buf + 4);
		fflush(stderr);
	}
	return code >= 0 && code <= 255 ? code : 126;
}
