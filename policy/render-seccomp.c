/* render-seccomp.c: the plan's system-call policy as a seccomp BPF program.
 *
 * Modelled on Flatpak's setup_seccomp(): a default-allow filter with a block
 * list, exported with seccomp_export_bpf() into a memfd that bwrap reads with
 * --seccomp FD. The native architecture and its 32-bit compat architecture
 * get the same rules; any other ABI (e.g. x32) is killed by libseccomp's
 * bad-architecture action. */
#include "policy/render-seccomp.h"
#include "policy/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* One blocked call: the plan flag that enables it, its name, the errno. */
struct render_seccomp_rule {
	unsigned    flag;
	const char *name;
	int         errnum;
};

static const struct render_seccomp_rule render_seccomp_rules[] = {
	{ PLAN_SYS_BLOCK_KEYRING, "add_key", EPERM },
	{ PLAN_SYS_BLOCK_KEYRING, "keyctl", EPERM },
	{ PLAN_SYS_BLOCK_KEYRING, "request_key", EPERM },

	{ PLAN_SYS_BLOCK_MOUNT, "mount", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "umount", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "umount2", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "pivot_root", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "chroot", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "open_tree", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "move_mount", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "fsopen", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "fsconfig", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "fsmount", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "fspick", EPERM },
	{ PLAN_SYS_BLOCK_MOUNT, "mount_setattr", EPERM },

	{ PLAN_SYS_BLOCK_NAMESPACES, "unshare", EPERM },
	{ PLAN_SYS_BLOCK_NAMESPACES, "setns", EPERM },
	/* seccomp cannot look into struct clone_args: refuse clone3 with
	 * ENOSYS so that libc falls back to clone(), whose flags we check. */
	{ PLAN_SYS_BLOCK_NAMESPACES, "clone3", ENOSYS },

	{ PLAN_SYS_BLOCK_TRACE, "ptrace", EPERM },
	{ PLAN_SYS_BLOCK_TRACE, "process_vm_readv", EPERM },
	{ PLAN_SYS_BLOCK_TRACE, "process_vm_writev", EPERM },
	{ PLAN_SYS_BLOCK_TRACE, "perf_event_open", EPERM },

	{ PLAN_SYS_BLOCK_IO_URING, "io_uring_setup", EPERM },
	{ PLAN_SYS_BLOCK_IO_URING, "io_uring_enter", EPERM },
	{ PLAN_SYS_BLOCK_IO_URING, "io_uring_register", EPERM },

	{ PLAN_SYS_BLOCK_KERNEL, "kexec_load", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "kexec_file_load", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "init_module", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "finit_module", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "delete_module", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "bpf", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "userfaultfd", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "quotactl", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "quotactl_fd", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "acct", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "swapon", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "swapoff", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "reboot", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "syslog", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "lookup_dcookie", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "name_to_handle_at", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "open_by_handle_at", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "vhangup", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "uselib", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "modify_ldt", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "move_pages", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "migrate_pages", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "mbind", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "set_mempolicy", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "get_mempolicy", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "nfsservctl", EPERM },
	{ PLAN_SYS_BLOCK_KERNEL, "_sysctl", EPERM },
};

/* Socket families a sandbox may create (kept in numerical order). */
static const int render_seccomp_families[] = {
	AF_UNSPEC, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK,
};

/* Namespace flags that clone() must not carry. */
static const unsigned long render_seccomp_clone_ns[] = {
	CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
	CLONE_NEWNET, CLONE_NEWCGROUP,
};

/* Add one rule by syscall name; calls unknown to libseccomp are skipped. */
static int
render_seccomp_add(scmp_filter_ctx ctx, const char *name, int errnum,
    unsigned cnt, const struct scmp_arg_cmp *cmp, sbox_error *err)
{
	int nr, rc;

	nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return 0;
	rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(errnum), nr, cnt, cmp);
	if (rc < 0)
		return error_set_errno(err, E_INTERNAL, -rc,
		    "seccomp: cannot add a rule for %s", name);
	return 0;
}

/* Refuse personality() unless the value is PER_LINUX (0) or the 0xffffffff
 * query. libseccomp takes one comparison per argument and rule, so "neither
 * 0 nor all ones" is spelled as a union: bit 0 and bit k differ, for each k
 * in 1..31 (62 masked rules), plus any value above 32 bits. */
static int
render_seccomp_add_personality(scmp_filter_ctx ctx, sbox_error *err)
{
	struct scmp_arg_cmp cmp;
	scmp_datum_t mask;
	int k;

	for (k = 1; k < 32; k++) {
		mask = 1u | (1u << k);
		cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, mask, 1u);
		if (render_seccomp_add(ctx, "personality", EPERM, 1, &cmp,
		    err) < 0)
			return -1;
		cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, mask, 1u << k);
		if (render_seccomp_add(ctx, "personality", EPERM, 1, &cmp,
		    err) < 0)
			return -1;
	}
	cmp = SCMP_A0(SCMP_CMP_GT, 0xFFFFFFFFu);
	return render_seccomp_add(ctx, "personality", EPERM, 1, &cmp, err);
}

/* The second layer behind "the sandbox never holds the person's terminal":
 * the terminal ioctls that change the state of the terminal's other side
 * or of the machine's terminals (line discipline, console redirection,
 * exclusive mode, serial settings, hangup; and taking a terminal that is
 * another session's controlling terminal, TIOCSCTTY with force set;
 * sbox-init's own TIOCSCTTY on the sandbox's pty passes 0). Only the low
 * 32 bits of the command are compared, as the kernel reads them. */
static int
render_seccomp_add_tty(scmp_filter_ctx ctx, sbox_error *err)
{
	static const unsigned long cmds[] = { TIOCSETD, TIOCCONS, TIOCEXCL,
	    TIOCSSERIAL, TIOCVHANGUP };
	struct scmp_arg_cmp cmp[2];
	size_t i;

	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		cmp[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu,
		    (scmp_datum_t)cmds[i]);
		if (render_seccomp_add(ctx, "ioctl", EPERM, 1, cmp, err) < 0)
			return -1;
	}
	cmp[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu,
	    (scmp_datum_t)TIOCSCTTY);
	cmp[1] = SCMP_A2(SCMP_CMP_NE, 0);
	return render_seccomp_add(ctx, "ioctl", EPERM, 2, cmp, err);
}

/* Add the argument-filtered rules (clone flags, ioctl, personality). */
static int
render_seccomp_add_args(scmp_filter_ctx ctx, unsigned sys, sbox_error *err)
{
	struct scmp_arg_cmp cmp[1];
	int clone_arg = 0;
	size_t i;

#if defined(__s390__) || defined(__s390x__) || defined(__CRIS__)
	clone_arg = 1; /* CONFIG_CLONE_BACKWARDS2: flags come second */
#endif
	if (sys & PLAN_SYS_BLOCK_NAMESPACES) {
		for (i = 0; i < sizeof render_seccomp_clone_ns /
		    sizeof render_seccomp_clone_ns[0]; i++) {
			cmp[0] = (struct scmp_arg_cmp){ clone_arg,
			    SCMP_CMP_MASKED_EQ, render_seccomp_clone_ns[i],
			    render_seccomp_clone_ns[i] };
			if (render_seccomp_add(ctx, "clone", EPERM, 1, cmp,
			    err) < 0)
				return -1;
		}
	}
	if (sys & PLAN_SYS_BLOCK_TTY_INJECT) {
		/* The kernel takes the command as 32 bits: compare only
		 * those, so high bits set by the caller do not get past. */
		cmp[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu,
		    (scmp_datum_t)TIOCSTI);
		if (render_seccomp_add(ctx, "ioctl", EPERM, 1, cmp, err) < 0)
			return -1;
		cmp[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu,
		    (scmp_datum_t)TIOCLINUX);
		if (render_seccomp_add(ctx, "ioctl", EPERM, 1, cmp, err) < 0)
			return -1;
		if (render_seccomp_add_tty(ctx, err) < 0)
			return -1;
	}
	if ((sys & PLAN_SYS_BLOCK_PERSONALITY) &&
	    render_seccomp_add_personality(ctx, err) < 0)
		return -1;
	return 0;
}

/* Refuse every socket family that is not in render_seccomp_families. */
static int
render_seccomp_add_sockets(scmp_filter_ctx ctx, sbox_error *err)
{
	struct scmp_arg_cmp cmp;
	int last = -1, fam, nr, rc;
	size_t i;

	nr = seccomp_syscall_resolve_name("socket");
	for (i = 0; i < sizeof render_seccomp_families /
	    sizeof render_seccomp_families[0]; i++) {
		for (fam = last + 1; fam < render_seccomp_families[i]; fam++) {
			cmp = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam);
			rc = seccomp_rule_add_array(ctx,
			    SCMP_ACT_ERRNO(RENDER_SECCOMP_SOCKET_ERRNO), nr, 1,
			    &cmp);
			if (rc < 0)
				return error_set_errno(err, E_INTERNAL, -rc,
				    "seccomp: cannot filter socket families");
		}
		last = render_seccomp_families[i];
	}
	cmp = SCMP_A0(SCMP_CMP_GE, (scmp_datum_t)(last + 1));
	rc = seccomp_rule_add_array(ctx,
	    SCMP_ACT_ERRNO(RENDER_SECCOMP_SOCKET_ERRNO), nr, 1, &cmp);
	if (rc < 0)
		return error_set_errno(err, E_INTERNAL, -rc,
		    "seccomp: cannot filter socket families");
	return 0;
}

/* The calls whose mode argument can set S_ISUID or S_ISGID: the name, the
 * mode's argument index, and the flags' index when the mode counts only
 * with O_CREAT or O_TMPFILE (-1: always). */
static const struct {
	const char *name;
	unsigned    mode_arg;
	int         flags_arg;
} render_seccomp_modes[] = {
	{ "chmod", 1, -1 }, { "fchmod", 1, -1 }, { "fchmodat", 2, -1 },
	{ "fchmodat2", 2, -1 }, { "mkdir", 1, -1 }, { "mkdirat", 2, -1 },
	{ "mknod", 1, -1 }, { "mknodat", 2, -1 }, { "creat", 1, -1 },
	{ "open", 2, 1 }, { "openat", 3, 2 },
};

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* No privilege bits, ever (whatever the plan's flags): a mode with
 * S_ISUID or S_ISGID is refused with EPERM by the kernel, before the file
 * guard sees the call; so is every setxattr (security.capability gives a
 * file capabilities; its name is a pointer the filter cannot read:
 * EOPNOTSUPP, which tools take as "no extended attributes here").
 * openat2, whose mode is in a struct, is the file guard's (init-supervise.c:
 * ENOSYS to commands; sbox-init itself uses it to resolve paths). */
static int
render_seccomp_add_privbits(scmp_filter_ctx ctx, sbox_error *err)
{
	static const scmp_datum_t bits[] = { S_ISUID, S_ISGID };
	static const scmp_datum_t creates[] = { O_CREAT, __O_TMPFILE };
	static const char *const xattr[] = { "setxattr", "lsetxattr",
	    "fsetxattr", "setxattrat" };
	struct scmp_arg_cmp cmp[2];
	size_t i, b, c;

	for (i = 0; i < sizeof render_seccomp_modes /
	    sizeof render_seccomp_modes[0]; i++)
		for (b = 0; b < 2; b++) {
			cmp[0] = (struct scmp_arg_cmp){
			    render_seccomp_modes[i].mode_arg,
			    SCMP_CMP_MASKED_EQ, bits[b], bits[b] };
			if (render_seccomp_modes[i].flags_arg < 0) {
				if (render_seccomp_add(ctx,
				    render_seccomp_modes[i].name, EPERM, 1, cmp,
				    err) < 0)
					return -1;
				continue;
			}
			for (c = 0; c < 2; c++) {
				cmp[1] = (struct scmp_arg_cmp){ (unsigned)
				    render_seccomp_modes[i].flags_arg,
				    SCMP_CMP_MASKED_EQ, creates[c], creates[c] };
				if (render_seccomp_add(ctx,
				    render_seccomp_modes[i].name, EPERM, 2, cmp,
				    err) < 0)
					return -1;
			}
		}
	for (i = 0; i < sizeof xattr / sizeof xattr[0]; i++)
		if (render_seccomp_add(ctx, xattr[i], EOPNOTSUPP, 0, NULL,
		    err) < 0)
			return -1;
	return 0;
}

/* Add the compat architecture of the native one (as Flatpak does). */
static int
render_seccomp_arches(scmp_filter_ctx ctx, sbox_error *err)
{
	static const uint32_t extra[] = {
#if defined(__x86_64__)
		SCMP_ARCH_X86,
#elif defined(__aarch64__)
		SCMP_ARCH_ARM,
#endif
		0,
	};
	size_t i;
	int rc;

	for (i = 0; extra[i] != 0; i++) {
		rc = seccomp_arch_add(ctx, extra[i]);
		if (rc < 0 && rc != -EEXIST)
			return error_set_errno(err, E_INTERNAL, -rc,
			    "seccomp: cannot add a compat architecture");
	}
	return 0;
}

/* Write the exported program into a fresh memfd positioned at 0. */
static int
render_seccomp_export(scmp_filter_ctx ctx, int *fd_out, sbox_error *err)
{
	int fd, rc;

	fd = memfd_create("sbox-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return error_set_errno(err, E_INTERNAL, errno,
		    "seccomp: memfd_create");
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		close(fd);
		return error_set_errno(err, E_INTERNAL, -rc,
		    "seccomp: cannot export the program");
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		rc = errno;
		close(fd);
		return error_set_errno(err, E_INTERNAL, rc, "seccomp: lseek");
	}
	*fd_out = fd;
	return 0;
}

/* The last program built, kept so that each session does not compile the
 * same filter again (about 2 ms each). */
static struct {
	int            valid;
	unsigned       flags;
	unsigned char *bpf;
	size_t         len;
} render_seccomp_cache;

/* Remember the program in fd (positioned at 0) for these flags. */
static void
render_seccomp_keep(unsigned flags, int fd)
{
	struct stat st;
	unsigned char *buf;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size > (1 << 20) ||
	    (buf = malloc((size_t)st.st_size)) == NULL)
		return;
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		return;
	}
	free(render_seccomp_cache.bpf);
	render_seccomp_cache.bpf = buf;
	render_seccomp_cache.len = (size_t)st.st_size;
	render_seccomp_cache.flags = flags;
	render_seccomp_cache.valid = 1;
}

/* A fresh memfd holding the kept program; -1 when there is none. */
static int
render_seccomp_from_cache(unsigned flags, int *fd_out)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	if (!render_seccomp_cache.valid || render_seccomp_cache.flags != flags ||
	    (fd = memfd_create("sbox-seccomp", MFD_CLOEXEC)) < 0)
		return -1;
	while (off < render_seccomp_cache.len) {
		n = write(fd, render_seccomp_cache.bpf + off,
		    render_seccomp_cache.len - off);
		if (n <= 0 && errno != EINTR) {
			close(fd);
			return -1;
		}
		if (n > 0)
			off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	*fd_out = fd;
	return 0;
}

/* Build the filter for plan_syscalls and export it into a memfd. */
int
render_seccomp(unsigned plan_syscalls, int *fd_out, sbox_error *err)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc = -1;

	*fd_out = -1;
	if (render_seccomp_from_cache(plan_syscalls, fd_out) == 0)
		return 0;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		return error_set(err, E_INTERNAL, "seccomp: cannot initialise");
	if (render_seccomp_arches(ctx, err) < 0)
		goto out;
	for (i = 0; i < sizeof render_seccomp_rules /
	    sizeof render_seccomp_rules[0]; i++) {
		if (!(plan_syscalls & render_seccomp_rules[i].flag))
			continue;
		if (render_seccomp_add(ctx, render_seccomp_rules[i].name,
		    render_seccomp_rules[i].errnum, 0, NULL, err) < 0)
			goto out;
	}
	if (render_seccomp_add_args(ctx, plan_syscalls, err) < 0)
		goto out;
	if ((plan_syscalls & PLAN_SYS_BLOCK_SOCKETS) &&
	    render_seccomp_add_sockets(ctx, err) < 0)
		goto out;
	if (render_seccomp_add_privbits(ctx, err) < 0)
		goto out;
	rc = render_seccomp_export(ctx, fd_out, err);
	if (rc == 0)
		render_seccomp_keep(plan_syscalls, *fd_out);
out:
	seccomp_release(ctx);
	return rc;
}
