/* container-launch.c: how the process that becomes bwrap starts, once
 * container-bind.c holds every bind: as root, a private mount namespace
 * pruned of the host's mounts bwrap has no use for, the held trees
 * attached under its /tmp, then the sandbox's uid; the descriptors put in
 * place, signals at their defaults, and bwrap's exec. Either in a fork of
 * sboxd or in the spare launcher made ahead (container-spare.c), or, with
 * nothing to do before the exec, through posix_spawn. */
#include "daemon/container/container-launch.h"
#include "daemon/container/container-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "daemon/container/container-standin.h"
#include "policy/path.h"

/* In the launcher: the stand-ins' step that failed (for its message). */
static const char *container_launch_failed;

/* posix_spawn's signal attributes for a child that starts as from
 * nothing: every disposition at the default, nothing blocked. Every bit of
 * the set, not sigfillset's: glibc leaves its own two (32, 33) out of that,
 * and posix_spawn then starts the child with them ignored, which exec keeps
 * down to every command. 0 or an errno. */
int
container_launch_sigattr(posix_spawnattr_t *at)
{
	sigset_t all, none;
	int e;

	memset(&all, 0xff, sizeof all);
	sigemptyset(&none);
	if ((e = posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGDEF |
	    POSIX_SPAWN_SETSIGMASK)) != 0 ||
	    (e = posix_spawnattr_setsigdefault(at, &all)) != 0)
		return e;
	return posix_spawnattr_setsigmask(at, &none);
}

/* Undo mountinfo's octal escapes (\040 and the like) in place. */
static void
container_launch_unescape(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + s[3] - '0');
			s += 3;
		} else
			*o = *s;
	}
	*o = '\0';
}

/* In the staged namespace, before its /tmp: detach every mount bwrap has
 * no use for (all it binds is held under /tmp): all but /, /proc, /dev
 * and the mounts that hold bwrap (keep) and the dynamic loader's files.
 * bwrap reads its mount table for each bind it makes, so each mount left
 * here costs every start (a host's /sys, /run, cgroup, snap and container
 * mounts). Best effort: one that stays costs time, not safety (none of
 * them reaches the sandbox: bwrap binds only the held trees). */
static void
container_launch_prune(const char *keep)
{
	const char *need[] = { keep, "/usr/lib", "/usr/lib64", "/lib", "/lib64",
	    "/etc", NULL };
	char line[PATH_MAX + 512], *f, *mp;
	FILE *mi;
	int i, k, skip;

	if (keep == NULL || keep[0] != '/' ||
	    (mi = fopen("/proc/self/mountinfo", "re")) == NULL)
		return;
	while (fgets(line, sizeof line, mi) != NULL) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		for (f = line, i = 0; i < 4 && f != NULL; i++)
			if ((f = strchr(f, ' ')) != NULL)
				f++;
		if (f == NULL || (mp = strtok(f, " ")) == NULL)
			continue;
		container_launch_unescape(mp);
		if (mp[0] != '/' || strcmp(mp, "/") == 0 ||
		    path_is_under(mp, "/proc") || path_is_under(mp, "/dev"))
			continue;
		for (k = 0, skip = 0; !skip && need[k] != NULL; k++)
			skip = need[k][0] == '/' && (path_is_under(need[k], mp) ||
			    path_is_under(mp, need[k]));
		if (!skip)
			umount2(mp, MNT_DETACH);	/* (gone with a parent: fine) */
	}
	fclose(mi);
}

/* In the process that becomes bwrap (root only): a private mount namespace
 * of its own, pruned of the mounts bwrap does not need (keep is bwrap's
 * path), with an empty tmpfs on /tmp for the held trees. -1 with errno. */
int
container_launch_stage(const char *keep)
{
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	container_launch_prune(keep);
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=64k") < 0)
		return -1;
	return 0;
}

/* In bwrap's forked child (root only): attach the held trees under /tmp
 * of the namespace container_launch_stage makes (now, unless staged says it
 * was made ahead), then become the sandbox's uid. Returns -1 (errno set)
 * on failure; the caller _exits. */
int
container_launch_child(const struct container_binds *b, const char *keep,
    int staged)
{
	const char *what;
	char name[32];
	size_t i;
	int fd;

	if (!b->staged) {
		if (b->si != NULL && container_standin_mount(b->si, &what) < 0) {
			container_launch_failed = what;
			return -1;
		}
		return 0;
	}
	if (!staged && container_launch_stage(keep) < 0)
		return -1;
	for (i = 0; i < b->n; i++) {
		snprintf(name, sizeof name, "/tmp/%zu", i);
		if (b->is_dir[i]) {
			if (mkdir(name, 0755) < 0)
				return -1;
		} else {
			if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0644)) < 0)
				return -1;
			close(fd);
		}
		if (syscall(SYS_move_mount, b->fds[i], "", AT_FDCWD, name,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return -1;
	}
	/* the stand-ins, while still root (after the held trees: the stage
	 * is under the same /tmp) */
	if (b->si != NULL && container_standin_mount(b->si, &what) < 0) {
		container_launch_failed = what;
		return -1;
	}
	if (setgroups(0, NULL) < 0 || setresgid(b->run_gid, b->run_gid,
	    b->run_gid) < 0 || setresuid(b->run_uid, b->run_uid, b->run_uid) < 0)
		return -1;
	return 0;
}

/* In the process that becomes bwrap (a fork of sboxd, or the spare made
 * ahead): stage the binds (as root), put src at fds 0-5 and the held binds
 * at CFD_BINDS + i, close everything else, default signals, exec bwrap
 * with an empty environment (staged: its mount namespace was made ahead,
 * container_launch_stage). Never returns; src[2] is bwrap's stderr, where a
 * failure is told (container_explain shows it). */
void
container_launch_exec(const char *bwrap, char *const *argv, const int src_in[6],
    const struct container_binds *b, int staged)
{
	char *envp[] = { NULL };
	int nheld = b->staged ? 0 : (int)b->n, src[6], *held = NULL, i;
	int above = CFD_BINDS + (int)b->n + 10;
	sigset_t none;

	/* every source above the targets, so that dup2 clobbers none */
	for (i = 0; i < 6; i++)
		if ((src[i] = fcntl(src_in[i], F_DUPFD_CLOEXEC, above)) < 0)
			_exit(127);
	if (nheld > 0 && (held = calloc((size_t)nheld, sizeof *held)) == NULL)
		_exit(127);
	for (i = 0; i < nheld; i++)
		if ((held[i] = fcntl(b->fds[i], F_DUPFD_CLOEXEC, above)) < 0)
			_exit(127);
	if (container_launch_child(b, bwrap, staged) < 0) {
		dprintf(src[2], "sboxd: cannot prepare the sandbox's mounts "
		    "and uid%s%s: %s\n", container_launch_failed ? ": " : "",
		    container_launch_failed ? container_launch_failed : "",
		    strerror(errno));
		_exit(126);
	}
	for (i = 0; i < 6; i++)
		if (dup2(src[i], i) < 0)
			_exit(127);
	for (i = 0; i < nheld; i++)
		if (dup2(held[i], CFD_BINDS + i) < 0)
			_exit(127);
	if (syscall(SYS_close_range, (unsigned)(CFD_BINDS + nheld), ~0u, 0u) < 0)
		for (i = CFD_BINDS + nheld; i < 65536; i++)
			close(i);
	for (i = 1; i < NSIG; i++)
		signal(i, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(bwrap, argv, envp);
	/* fd 2 is bwrap's stderr pipe: container_explain shows this */
	dprintf(2, "cannot run bwrap %s: %s\n", bwrap, strerror(errno));
	_exit(127);
}

/* Start bwrap as container_launch_exec does, for binds that are not staged
 * and no cgroup to join: posix_spawn (a vfork) instead of a fork, whose
 * copy of sboxd's page tables made sboxd fault on each page it wrote
 * until bwrap's exec. The pid, or -1 with err. */
pid_t
container_launch_spawn(const char *bwrap, char *const *argv, const int src_in[6],
    const struct container_binds *b, sbox_error *err)
{
	char *envp[] = { NULL };
	int n = (int)b->n, above = CFD_BINDS + n + 10, *hi, i, e = 0;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid = -1;

	if (b->staged || b->si != NULL) {
		error_set(err, E_INTERNAL, "staged binds need a fork");
		return -1;
	}
	if ((hi = malloc(sizeof *hi * (size_t)(6 + n))) == NULL) {
		error_nomem(err);
		return -1;
	}
	for (i = 0; i < 6 + n; i++)
		hi[i] = -1;
	/* every source above the targets, so that dup2 clobbers none */
	for (i = 0; i < 6 + n && e == 0; i++)
		if ((hi[i] = fcntl(i < 6 ? src_in[i] : b->fds[i - 6],
		    F_DUPFD_CLOEXEC, above)) < 0)
			e = errno;
	if (e == 0 && (e = posix_spawn_file_actions_init(&fa)) == 0) {
		if ((e = posix_spawnattr_init(&at)) == 0) {
			for (i = 0; i < 6 + n && e == 0; i++)
				e = posix_spawn_file_actions_adddup2(&fa, hi[i],
				    i < 6 ? i : CFD_BINDS + i - 6);
			if (e == 0)
				e = posix_spawn_file_actions_addclosefrom_np(&fa,
				    CFD_BINDS + n);
			if (e == 0)
				e = container_launch_sigattr(&at);
			if (e == 0)
				e = posix_spawn(&pid, bwrap, &fa, &at, argv, envp);
			posix_spawnattr_destroy(&at);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	for (i = 0; i < 6 + n; i++)
		if (hi[i] >= 0)
			close(hi[i]);
	free(hi);
	if (e != 0) {
		error_set_errno(err, E_SANDBOX_UNAVAILABLE, e, "cannot run bwrap "
		    "%s", bwrap);
		return -1;
	}
	return pid;
}
