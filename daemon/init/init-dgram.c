/* init-dgram.c: the file guard's sendto, sendmsg and sendmmsg. A datagram
 * to a Unix path name reaches the program behind it as a connect does (a
 * host's syslog, a D-Bus or systemd notify socket, any SOCK_DGRAM socket
 * a host program bound in a folder the sandbox sees), so the same rule
 * holds: only a socket a bind through this guard made; every other one is
 * refused (EACCES, as connect) and reported with its path. Abstract and
 * unnamed addresses live in the sandbox's own network namespace: allowed.
 *
 * Every notified call is PERFORMED here, whatever the socket: the filter
 * notifies sendto with an address (a NULL one reaches only the peer a
 * decided connect gave the socket) and every sendmsg and sendmmsg (their
 * msg_name is in memory the filter cannot read). Letting the kernel
 * continue a call whose socket was checked is not sound: another thread
 * sharing the fd table can dup2 a Unix datagram socket onto the number
 * between the check and the continue, and the address in the caller's
 * memory can be rewritten too (by a thread, or through a shared mapping).
 * So the socket is a pidfd_getfd copy (the checked object itself: a
 * socket's family and type never change) and the address, the data and
 * the ancillary data are read once from the caller's memory; the kernel
 * then does with our copy what it would have done with the caller's. A
 * Unix path is decided only on a Unix socket: on another family (the
 * sandbox's own INET sockets to the proxy, netlink) an AF_UNIX address
 * reaches nothing (EAFNOSUPPORT, EINVAL); a Unix stream socket refuses a
 * name and a seqpacket one ignores it, but they are decided as well (no
 * reasoning on types needed: the kernel answers for what is allowed).
 *
 * Ancillary data: SCM_RIGHTS descriptors are numbers in the caller's
 * table and are translated (pidfd_getfd) -- never passed as our own
 * numbers; SCM_CREDENTIALS is refused (EPERM, reported): the kernel would
 * check them against sbox-init, not against the caller, so a caller could
 * claim sbox-init's pid. Other levels (IP_PKTINFO, UDP_SEGMENT...) carry
 * no descriptor and go as they are. A receiver with SO_PASSCRED sees
 * sbox-init's pid (or a helper's), with the caller's uid and gid (the same
 * user, and neither holds a capability: bwrap drops them all).
 *
 * A send that would block on a blocking socket goes on in a helper process
 * (init_sockets_helper) that answers the call itself; a stream's partial
 * send resumes there where it stopped. EPIPE raises SIGPIPE in the calling
 * thread, as the kernel does, unless MSG_NOSIGNAL. sendmmsg is a bounded
 * batch (1024 messages, 4 MiB in all; a shorter batch is what the kernel
 * may answer too), and each sent message's msg_len is written back. The
 * 32-bit ABI's msghdr layout is not read: its sendmsg and sendmmsg are
 * refused (its sendto is decided as the native one). */
#include "protocol/ctl.h"
#include "daemon/init/init-dgram.h"
#include "daemon/init/init-exclude.h"
#include "daemon/init/init-sockets.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define INIT_DGRAM_BYTES   (4u << 20) /* data of one call read at most */
#define INIT_DGRAM_CONTROL 65536      /* ancillary bytes of one message */
#define INIT_DGRAM_BATCH   1024       /* sendmmsg's messages (UIO_MAXIOV) */
#define INIT_DGRAM_IOV     1024       /* iovecs of one message */
#define INIT_DGRAM_FDS     253        /* descriptors of one (SCM_MAX_FD) */

/* One message as read and decided. */
struct init_dgram_msg {
	struct sockaddr_storage name;
	socklen_t namelen;
	char     *data;
	size_t    len, sent;
	char     *control;
	size_t    controllen;
	int       fds[INIT_DGRAM_FDS]; /* our copies of its SCM_RIGHTS */
	int       nfds;
	int       pfd;      /* the socket file a path name reached, or -1 */
	uint64_t  lenaddr;  /* sendmmsg: the caller's msg_len, else 0 */
};

/* One call: the socket and its messages. */
struct init_dgram {
	struct init_walk_caller *t;
	int    sock, family, type, flags, blocking, wmem;
	struct init_dgram_msg *m;
	size_t nalloc;       /* messages asked for (sendmmsg's vlen, bounded) */
	size_t n, i, done;   /* read and decided; the next to send; sent */
	size_t budget;       /* data bytes the batch may still read */
};

/* Translate the SCM_RIGHTS descriptors of m's ancillary data into ours,
 * walking the headers exactly as the kernel does (__scm_send); 0 or an
 * errno, SV_UNDECIDED for SCM_CREDENTIALS. */
static int
init_dgram_control(struct init_dgram *d, struct init_dgram_msg *m)
{
	struct cmsghdr h;
	size_t off = 0, k, nfd;
	int fd, copy;

	while (m->controllen >= sizeof h && off <= m->controllen - sizeof h) {
		memcpy(&h, m->control + off, sizeof h);
		if (h.cmsg_len < sizeof h || h.cmsg_len > m->controllen - off)
			return EINVAL;
		if (h.cmsg_level == SOL_SOCKET &&
		    h.cmsg_type == SCM_CREDENTIALS)
			return init_state_undecided(NULL, "a message with "
			    "SCM_CREDENTIALS (sbox-init sends it: the kernel "
			    "would vouch for sbox-init, not the caller)");
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			nfd = (h.cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (nfd > (size_t)(INIT_DGRAM_FDS - m->nfds))
				return EINVAL;
			for (k = 0; k < nfd; k++) {
				memcpy(&fd, m->control + off + CMSG_LEN(0) +
				    k * sizeof fd, sizeof fd);
				if ((copy = init_sockets_getfd(d->t, fd)) < 0)
					return EBADF;
				m->fds[m->nfds++] = copy;
				memcpy(m->control + off + CMSG_LEN(0) +
				    k * sizeof fd, &copy, sizeof copy);
			}
		}
		if (CMSG_ALIGN(h.cmsg_len) > m->controllen - off)
			break;
		off += CMSG_ALIGN(h.cmsg_len);
	}
	return 0;
}

/* Decide m's address: a Unix path name on a Unix socket becomes the very
 * socket file checked (/proc/self/fd/N of our O_PATH descriptor). */
static int
init_dgram_name(struct init_dgram *d, struct init_dgram_msg *m)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&m->name;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	char path[sizeof sun->sun_path + 1];
	size_t n;
	int e;

	if (d->family != AF_UNIX || m->namelen <= off ||
	    sun->sun_family != AF_UNIX || sun->sun_path[0] == '\0')
		return 0; /* no path: abstract, unnamed, another family */
	if (m->namelen > sizeof *sun)
		return EINVAL; /* the kernel's answer (unix_validate_addr) */
	n = strnlen(sun->sun_path, m->namelen - off);
	memcpy(path, sun->sun_path, n);
	path[n] = '\0';
	if ((e = init_sockets_reach(d->t, path, "a datagram to", &m->pfd)) != 0)
		return e;
	memset(sun->sun_path, 0, sizeof sun->sun_path);
	snprintf(sun->sun_path, sizeof sun->sun_path, "/proc/self/fd/%d",
	    m->pfd);
	m->namelen = (socklen_t)(off + strlen(sun->sun_path) + 1);
	return 0;
}

/* Read the data iov[0..niov) of the caller points to (at most the call's
 * budget: a datagram beyond it is EMSGSIZE, a stream sends what fits). */
static int
init_dgram_data(struct init_dgram *d, struct init_dgram_msg *m,
    const struct iovec *iov, size_t niov)
{
	size_t k, total = 0, at = 0, take;

	for (k = 0; k < niov; k++) {
		if ((ssize_t)iov[k].iov_len < 0)
			return EINVAL;
		total += iov[k].iov_len < d->budget ? iov[k].iov_len :
		    d->budget;
		if (total > d->budget) {
			if (d->type != SOCK_STREAM)
				return EMSGSIZE;
			total = d->budget;
		}
	}
	if ((m->data = malloc(total ? total : 1)) == NULL)
		return ENOMEM;
	for (k = 0; k < niov && at < total; k++) {
		take = iov[k].iov_len < total - at ? iov[k].iov_len :
		    total - at;
		if (take > 0 && init_sockets_read(d->t,
		    (uint64_t)(uintptr_t)iov[k].iov_base, m->data + at,
		    take) != 0)
			return EFAULT;
		at += take;
	}
	m->len = total;
	d->budget -= total;
	return 0;
}

/* Read one message: name, data (niov iovecs at iovaddr, or the one in
 * *one) and ancillary data, decided. */
static int
init_dgram_read(struct init_dgram *d, struct init_dgram_msg *m,
    uint64_t name, uint32_t namelen, uint64_t iovaddr, size_t niov,
    const struct iovec *one, uint64_t control, size_t controllen)
{
	struct iovec *iov = NULL;
	int e;

	if (name != 0 && namelen > 0) {
		if ((int32_t)namelen < 0)
			return EINVAL;
		m->namelen = namelen > sizeof m->name ? sizeof m->name :
		    (socklen_t)namelen;
		if (init_sockets_read(d->t, name, &m->name, m->namelen) != 0)
			return EFAULT;
	}
	if (one != NULL)
		e = init_dgram_data(d, m, one, 1);
	else if (niov > INIT_DGRAM_IOV)
		e = EMSGSIZE;
	else if (niov > 0 && (iov = calloc(niov, sizeof *iov)) == NULL)
		e = ENOMEM;
	else if (niov > 0 && init_sockets_read(d->t, iovaddr, iov,
	    niov * sizeof *iov) != 0)
		e = EFAULT;
	else
		e = init_dgram_data(d, m, iov, niov);
	free(iov);
	if (e != 0)
		return e;
	if (controllen > 0) {
		if (controllen > INIT_DGRAM_CONTROL)
			return ENOBUFS;
		if ((m->control = malloc(controllen)) == NULL)
			return ENOMEM;
		m->controllen = controllen;
		if (init_sockets_read(d->t, control, m->control,
		    controllen) != 0)
			return EFAULT;
		if ((e = init_dgram_control(d, m)) != 0)
			return e;
	}
	return init_dgram_name(d, m);
}

/* Read the messages of the call (a batch: stops at the first that cannot
 * be read or is refused; that one's answer when it is the first). */
static int
init_dgram_read_all(struct init_dgram *d, struct init_sv_call *call)
{
	const __u64 *a = call->data->args;
	struct mmsghdr mm;
	struct iovec one;
	char why[PATH_MAX];
	size_t k;
	int e;

	if (call->sc == SV_SENDTO) {
		/* sendto takes no address longer than sockaddr_storage
		 * (sendmsg cuts one) */
		if ((uint32_t)a[5] > sizeof(struct sockaddr_storage))
			return EINVAL;
		one.iov_base = (void *)(uintptr_t)a[1];
		one.iov_len = (size_t)a[2];
		d->n = 1;
		return init_dgram_read(d, &d->m[0], a[4], (uint32_t)a[5], 0, 0,
		    &one, 0, 0);
	}
	for (k = 0; k < d->nalloc; k++) {
		memset(&mm, 0, sizeof mm);
		if (init_sockets_read(d->t, a[1] + k * (call->sc == SV_SENDMSG ?
		    sizeof mm.msg_hdr : sizeof mm), &mm.msg_hdr,
		    sizeof mm.msg_hdr) != 0)
			e = EFAULT;
		else if (mm.msg_hdr.msg_controllen > INT32_MAX)
			e = ENOBUFS;
		else
			e = init_dgram_read(d, &d->m[k],
			    (uint64_t)(uintptr_t)mm.msg_hdr.msg_name,
			    mm.msg_hdr.msg_namelen,
			    (uint64_t)(uintptr_t)mm.msg_hdr.msg_iov,
			    mm.msg_hdr.msg_iovlen, NULL,
			    (uint64_t)(uintptr_t)mm.msg_hdr.msg_control,
			    mm.msg_hdr.msg_controllen);
		if (e == 0 && mm.msg_hdr.msg_iov == NULL &&
		    mm.msg_hdr.msg_iovlen > 0)
			e = EFAULT;
		if (e != 0 && k > 0 && e == SV_UNDECIDED)
			/* the batch ends before it; its reason is no
			 * later refusal's */
			init_state_undecided_why(why, sizeof why);
		if (e != 0)
			return k == 0 ? e : 0;
		if (call->sc == SV_SENDMMSG)
			d->m[k].lenaddr = a[1] + k * sizeof mm +
			    offsetof(struct mmsghdr, msg_len);
		d->n = k + 1;
		if (d->budget == 0 && k + 1 < d->nalloc)
			break; /* the batch is full: a shorter answer */
	}
	return 0;
}

/* Send the messages from d->i on (wait: as the caller's blocking socket
 * would; else never blocking); 0 when all went, else the errno that
 * stopped them (EAGAIN: the rest would block). */
static int
init_dgram_run(struct init_dgram *d, int wait)
{
	struct init_dgram_msg *m;
	struct msghdr mh;
	struct iovec iov;
	uint32_t sent;
	ssize_t r;

	for (; d->i < d->n; d->i++) {
		m = &d->m[d->i];
		for (;;) {
			memset(&mh, 0, sizeof mh);
			mh.msg_name = m->namelen ? &m->name : NULL;
			mh.msg_namelen = m->namelen;
			iov.iov_base = m->data + m->sent;
			iov.iov_len = m->len - m->sent;
			mh.msg_iov = &iov;
			mh.msg_iovlen = 1;
			if (m->sent == 0 && m->controllen > 0) {
				mh.msg_control = m->control;
				mh.msg_controllen = m->controllen;
			}
			r = sendmsg(d->sock, &mh, d->flags | MSG_NOSIGNAL |
			    (wait ? 0 : MSG_DONTWAIT));
			if (r < 0 && errno == EINTR && wait)
				continue;
			if (r < 0)
				return errno;
			m->sent += (size_t)r;
			/* a datagram goes whole; a stream's rest goes on
			 * (not blocking: only for a socket that does not
			 * block, whose caller takes a short count) */
			if (r == 0 || d->type != SOCK_STREAM ||
			    m->sent >= m->len || (!wait && d->blocking))
				break;
		}
		if (!wait && d->blocking && m->sent < m->len)
			return EAGAIN; /* a stream's rest: the helper's */
		if (m->lenaddr != 0) {
			sent = (uint32_t)m->sent;
			if (d->wmem < 0 || pwrite(d->wmem, &sent, sizeof sent,
			    (off_t)m->lenaddr) != (ssize_t)sizeof sent)
				return EFAULT;
		}
		d->done++;
	}
	return 0;
}

/* The call's answer once the sends stopped with e: the bytes of a sendto
 * or sendmsg, the messages of a sendmmsg; an error when nothing went. */
static int
init_dgram_result(struct init_dgram *d, int sc, int e, long long *val)
{
	if (e == EPIPE && d->type == SOCK_STREAM && !(d->flags & MSG_NOSIGNAL))
		syscall(SYS_tgkill, d->t->tgid, d->t->tid, SIGPIPE);
	if (sc == SV_SENDMMSG) {
		*val = (long long)d->done;
		return d->done > 0 ? 0 : e;
	}
	*val = (long long)d->m[0].sent;
	return d->done > 0 || d->m[0].sent > 0 ? 0 : e;
}

/* Free what the messages hold. */
static void
init_dgram_free(struct init_dgram *d)
{
	size_t k;
	int j;

	for (k = 0; k < d->nalloc && d->m != NULL; k++) {
		free(d->m[k].data);
		free(d->m[k].control);
		for (j = 0; j < d->m[k].nfds; j++)
			close(d->m[k].fds[j]);
		if (d->m[k].pfd >= 0)
			close(d->m[k].pfd);
	}
	free(d->m);
	d->m = NULL;
	if (d->sock >= 0)
		close(d->sock);
	if (d->wmem >= 0)
		close(d->wmem);
	d->sock = d->wmem = -1;
}

/* sendto, sendmsg or sendmmsg for the caller. */
int
init_dgram_call(struct init_sv_call *call, struct init_walk_caller *t)
{
	const __u64 *a = call->data->args;
	struct seccomp_notif_resp r;
	struct init_dgram d;
	socklen_t sl = sizeof(int);
	char p[32];
	long long val = 0;
	size_t k;
	int e, fl, gate[2];
	pid_t pid;

	if (call->sc != SV_SENDTO && (call->data->arch == AUDIT_ARCH_I386 ||
	    call->data->arch == AUDIT_ARCH_ARM))
		return init_state_undecided(NULL, "a 32-bit sendmsg or "
		    "sendmmsg (its message layout is not read)");
	memset(&d, 0, sizeof d);
	d.t = t;
	d.wmem = -1;
	d.budget = INIT_DGRAM_BYTES;
	d.flags = (int)(uint32_t)a[call->sc == SV_SENDTO ? 3 : 2 +
	    (call->sc == SV_SENDMMSG)];
	if ((d.sock = init_sockets_getfd(t, (int)(uint32_t)a[0])) < 0) {
		e = d.sock == -EBADF ? EBADF : init_state_undecided(NULL,
		    "cannot reach the caller's socket");
		d.sock = -1;
		return e;
	}
	if (getsockopt(d.sock, SOL_SOCKET, SO_DOMAIN, &d.family, &sl) < 0 ||
	    (sl = sizeof(int), getsockopt(d.sock, SOL_SOCKET, SO_TYPE, &d.type,
	    &sl)) < 0) {
		e = errno == ENOTSOCK ? ENOTSOCK :
		    init_state_undecided(NULL, "cannot read the caller's "
		    "socket's family");
		close(d.sock);
		return e;
	}
	fl = fcntl(d.sock, F_GETFL);
	d.blocking = fl >= 0 && !(fl & O_NONBLOCK) && !(d.flags & MSG_DONTWAIT);
	d.nalloc = call->sc != SV_SENDMMSG ? 1 : (uint32_t)a[2] >
	    INIT_DGRAM_BATCH ? INIT_DGRAM_BATCH : (uint32_t)a[2];
	if (d.nalloc == 0) {
		close(d.sock);
		return 0; /* sendmmsg of no message: 0 */
	}
	if ((d.m = calloc(d.nalloc, sizeof *d.m)) == NULL) {
		close(d.sock);
		return ENOMEM;
	}
	for (k = 0; k < d.nalloc; k++)
		d.m[k].pfd = -1;
	if (call->sc == SV_SENDMMSG) {
		snprintf(p, sizeof p, "/proc/%d/mem", (int)t->tid);
		d.wmem = open(p, O_WRONLY | O_CLOEXEC);
	}
	if ((e = init_dgram_read_all(&d, call)) != 0 || d.n == 0)
		goto out;
	if (!init_walk_valid(t)) {
		e = ENOENT; /* the caller is gone: send nothing for it */
		goto out;
	}
	/* a hello of the exclusion shim to sbox-init itself: taken here, with
	 * the notifying thread as its sender */
	if (d.family == AF_UNIX && d.type == SOCK_SEQPACKET && d.n == 1 &&
	    (e = init_exclude_hello_from(d.sock, t->tid, d.m[0].data,
	    d.m[0].len, d.m[0].fds, d.m[0].nfds)) != -1) {
		call->val = e == 0 ? (long long)d.m[0].len : 0;
		goto out;
	}
	e = init_dgram_run(&d, 0);
	if (e == EAGAIN && d.blocking && pipe2(gate, O_CLOEXEC) == 0) {
		if ((pid = init_sockets_helper(call)) == 0) {
			/* the helper: the rest as the blocking socket would;
			 * it answers once no copy of the socket is left but
			 * the caller's (sbox-init's gone: the gate closed),
			 * so a close right after sees the kernel's state */
			close(gate[1]);
			e = init_dgram_run(&d, 1);
			e = init_dgram_result(&d, call->sc, e, &val);
			init_dgram_free(&d);
			while (read(gate[0], &k, sizeof k) < 0 &&
			    errno == EINTR)
				;
			memset(&r, 0, sizeof r);
			r.id = call->notif_id;
			r.error = e ? -e : 0;
			r.val = e ? 0 : val;
			ioctl(call->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
			_exit(0);
		}
		close(gate[0]);
		if (pid > 0) {
			init_dgram_free(&d);
			close(gate[1]);
			return SV_ANSWERED;
		}
		close(gate[1]);
	}
	e = init_dgram_result(&d, call->sc, e, &val);
	call->val = val;
out:
	init_dgram_free(&d);
	return e;
}
