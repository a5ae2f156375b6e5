/* proxy-jail.c: the proxy process confines itself (see proxy-jail.h). */
#include "daemon/proxy/proxy-jail.h"
#include "daemon/container/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <seccomp.h>

static char  *proxy_jail_argv0;   /* sboxd's argv strings, to overwrite */
static size_t proxy_jail_argv_len;

/* Remember sboxd's argv (contiguous strings from argv[0]). */
void
proxy_jail_set_argv(int argc, char **argv)
{
	int i;

	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return;
	proxy_jail_argv0 = argv[0];
	proxy_jail_argv_len = 0;
	for (i = 0; i < argc && argv[i] != NULL; i++) {
		if (argv[i] != proxy_jail_argv0 + proxy_jail_argv_len)
			break;
		proxy_jail_argv_len += strlen(argv[i]) + 1;
	}
}

/* Name the process: comm, and the argv ps shows. */
void
proxy_jail_name(void)
{
	prctl(PR_SET_NAME, PROXY_JAIL_NAME, 0, 0, 0);
	if (proxy_jail_argv0 != NULL &&
	    proxy_jail_argv_len > sizeof PROXY_JAIL_NAME) {
		memset(proxy_jail_argv0, 0, proxy_jail_argv_len);
		memcpy(proxy_jail_argv0, PROXY_JAIL_NAME, sizeof PROXY_JAIL_NAME);
	}
}

/* Keep only keep (as 3) and 0, 1 (/dev/null) and 2 (the log). */
int
proxy_jail_fds(int keep)
{
	int null;

	if (keep != 3) {
		if (dup2(keep, 3) < 0)
			return -1;
		keep = 3;
	}
	if (syscall(SYS_close_range, 4U, ~0U, 0U) < 0) {
		long max = sysconf(_SC_OPEN_MAX), fd;

		for (fd = 4; fd < (max > 0 ? max : 65536); fd++)
			close((int)fd);
	}
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 3)
			close(null);
	}
	fcntl(3, F_SETFD, FD_CLOEXEC);
	return keep;
}

/* Write text into a /proc file of this process. */
static int
proxy_jail_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Drop every capability (effective, permitted, inheritable, ambient). */
static int
proxy_jail_nocaps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return (int)syscall(SYS_capset, &h, d);
}

/* An empty, read-only tmpfs as root and working folder; the host's
 * folders are detached from this mount namespace (pivot_root). */
static int
proxy_jail_root(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	if (mount("sboxd-proxy", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, "size=4k,nr_inodes=2,mode=0555") < 0)
		return -1;
	if (chdir("/tmp") < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return -1;
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -1;
	return 0;
}

/* A user namespace the kernel refused (at step): what restricts them and
 * the one command that fixes it. */
static int
proxy_jail_userns(enum userns_probe_step step, sbox_error *err)
{
	struct userns_state st;
	char why[900];
	int e = errno;

	userns_read(&st);
	st.probed = 1;
	st.probe_step = step;
	st.probe_errno = e;
	userns_explain(&st, NULL, why, sizeof why);
	return error_set(err, E_SANDBOX_UNAVAILABLE, "proxy: cannot jail "
	    "itself in a user namespace: %s", why);
}

/* Empty root, ids, capabilities, no_new_privs. */
int
proxy_jail_enter(const struct proxy_jail *j, sbox_error *err)
{
	char map[64];

	if (j->uid == 0) {
		if (unshare(CLONE_NEWNS) < 0)
			return error_set_errno(err, E_INTERNAL, errno,
			    "proxy: mount namespace");
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return proxy_jail_userns(USERNS_PROBE_UNSHARE, err);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)j->uid,
		    (unsigned)j->uid);
		if (proxy_jail_write("/proc/self/uid_map", map) < 0)
			return proxy_jail_userns(USERNS_PROBE_UID_MAP, err);
		proxy_jail_write("/proc/self/setgroups", "deny");
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)j->gid,
		    (unsigned)j->gid);
		if (proxy_jail_write("/proc/self/gid_map", map) < 0)
			return error_set_errno(err, E_INTERNAL, errno,
			    "proxy: gid map");
	}
	if (proxy_jail_root() < 0)
		return error_set_errno(err, E_INTERNAL, errno, "proxy: empty root");
	if (j->uid == 0) {
		if (setgroups(0, NULL) < 0 ||
		    setresgid(j->run_gid, j->run_gid, j->run_gid) < 0 ||
		    setresuid(j->run_uid, j->run_uid, j->run_uid) < 0)
			return error_set_errno(err, E_INTERNAL, errno,
			    "proxy: dropping to uid %u", (unsigned)j->run_uid);
		if (getuid() == 0 || geteuid() == 0 || setuid(0) == 0)
			return error_set(err, E_INTERNAL, "proxy: still root");
	}
	if (proxy_jail_nocaps() < 0)
		return error_set_errno(err, E_INTERNAL, errno,
		    "proxy: dropping capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_set_errno(err, E_INTERNAL, errno, "proxy: no_new_privs");
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return 0;
}

/* The calls the proxy process makes once confined, as strace shows them
 * on the network tests (event loop, sockets, the resolver, the log on fd 2)
 * and what malloc needs; anything else kills it. No open, no exec, no
 * mprotect; mmap without PROT_EXEC only (below). */
static const char *const proxy_jail_calls[] = {
	"read", "write", "readv", "writev", "close", "fcntl",
	"recvfrom", "sendto", "recvmsg", "sendmsg",
	"accept", "accept4", "connect", "bind", "shutdown",
	"getsockname", "getpeername", "setsockopt", "getsockopt",
	"epoll_wait", "epoll_pwait", "epoll_ctl", "splice",
	"clock_gettime", "gettimeofday",
	"brk", "munmap", "mremap", "madvise",
	"rt_sigreturn", "rt_sigprocmask", "getrandom", "futex",
	"restart_syscall", "exit", "exit_group",
	NULL
};

/* The seccomp allow list: default kill; socket() only for IPv4/IPv6 and
 * netlink route (read-only without capabilities), mmap never executable,
 * ioctl only FIONREAD/FIONBIO. */
int
proxy_jail_seccomp(sbox_error *err)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc = 0;

	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL)
		return error_set(err, E_INTERNAL, "proxy: seccomp_init");
	/* a binary tree: the relay's calls pay for no long list */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (i = 0; proxy_jail_calls[i] != NULL && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(proxy_jail_calls[i]);

		if (nr == __NR_SCMP_ERROR)
			continue;   /* not on this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, AF_INET));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, AF_INET6));
	/* getifaddrs (evdns's AI_ADDRCONFIG, the interface table again) */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2,
		    SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
		    SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
		    SCMP_A1(SCMP_CMP_EQ, FIONREAD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
		    SCMP_A1(SCMP_CMP_EQ, FIONBIO));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0)
		return error_set(err, E_INTERNAL, "proxy: seccomp: %s",
		    strerror(-rc));
	return 0;
}
