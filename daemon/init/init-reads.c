/* init-reads.c: the read reporter of sbox-init's file guard. The notify
 * filter also stops read-only opens (open/openat without O_WRONLY, O_RDWR,
 * O_CREAT or O_TRUNC), except those with O_NOCTTY (C compilers' header
 * search, hot in builds) or O_PATH (no content is read). Reads are enforced
 * by the mounts, not here: the notification only serves to report one that
 * a hidden path refused.
 *
 * Fast path: the path is read from the caller (/proc/TID/mem, a short
 * first copy), made absolute against its cwd or dirfd (/proc/TID/cwd,
 * /proc/TID/fd/N, only when relative), folded lexically and compared with
 * the spec's few hidden rules alone: a path that none of them holds cannot
 * be decided hidden (the longest matching rule is then not a hidden one),
 * so it is CONTINUEd at once and the kernel does it. Only a path under a
 * hidden rule is looked up in all the rules (plan_explain's: the longest
 * match decides).
 *
 * Possibly hidden: sbox-init performs the open for the caller exactly as
 * for a write (init-ops.c, walking with descriptors, /proc/self meaning the
 * caller) and answers with that result, so what is reported is what the
 * caller got. It reports op "read" when the resolved location is under a
 * hidden rule and the open failed with ENOENT, EACCES or EPERM, or opened a
 * hidden stand-in: a file bound to /dev/null, or the empty folder at a
 * hidden rule's path. sboxd keeps a report only when the path exists on
 * the host (the sandbox changed the outcome).
 *
 * Not observed (documented blind spots, never false reports): opens with
 * O_NOCTTY or O_PATH, openat2 (refused with ENOSYS: libc falls back),
 * stat/access/exec/readlink and other calls that name a path, a path whose
 * lexical form is visible but that leads into a hidden area through a
 * symlink, a procfs link or "..", and a path another thread rewrites
 * between the check and the kernel's own open.
 *
 * DESIGN (issue 24: where a build's time goes, and why every read-only
 * open is still a round trip). Counted on the benchmark's job (untar and
 * make -j2 of 300 C files; strace -f of the same job): 21,172 opens, of
 * which 16,223 read-only ones without O_NOCTTY or O_PATH reach sbox-init,
 * and NONE of them names a path under a hidden rule: 15,615 are absolute,
 * under /usr, /lib and /etc -- glibc's locale files and gcc's and gas's
 * message catalogs (10,112, 5,192 of which fail with ENOENT) and the
 * dynamic loader (ld.so.cache, libc, libz, ...: 5,182) -- and 608 are
 * the linker's reads of the objects in the project. The
 * fast path continues each at once; what costs is the round trip itself.
 * Profiled over 100,000 such opens (perf, one caller): about 60% of the
 * time is the two context switches (the caller sleeps until sbox-init has
 * run, sbox-init until the caller runs again), about 10% the seccomp
 * ioctls, about 3% sbox-init's own code. So only fewer notifications
 * would remove most of it, and nothing this kernel (6.18) offers gives
 * that exactly:
 *  - A BPF first pass sees the call's flags, dirfd and the path's address,
 *    never the path. The 16,223 are O_RDONLY|O_CLOEXEC (the loader, the
 *    locale: the same as Python's open() and git's) or O_RDONLY (the
 *    catalogs: the same as cat's), all AT_FDCWD, nearly all with an
 *    absolute path (which ignores the dirfd; what a dirfd refers to is not
 *    visible to BPF anyway): a rule that drops them drops
 *    `cat ~/.ssh/id_rsa`.
 *  - A cache of folders that can hold nothing hidden: the fast path
 *    already decides on the lexical path and the hidden rules alone, with
 *    no syscall but the path's copy; a cache would save the readlink of a
 *    relative open's folder (608 of the 16,223), not the round trip.
 *  - More threads: a thread takes sbox-init's own work (the 3%), not the
 *    switches; the walks and operations of writes rely on one
 *    notification at a time.
 *  - Landlock (ABI 7 here) refuses reads beneath hidden paths in the
 *    kernel, but the mounts already do; a refusal is logged only to the
 *    kernel's audit, which an unprivileged sboxd cannot read.
 *  - fanotify reports opens of files that exist, never a failed lookup:
 *    `cat ~/.ssh/id_rsa` in the hidden home (ENOENT), the common refused
 *    read, makes no event; permission events need CAP_SYS_ADMIN on the
 *    host.
 *  - Hidden stand-ins served by a FUSE file system: exact and free for
 *    every other open. Built in issue 38 without mount rights inside the
 *    sandbox: sboxd serves them and the launcher mounts them before bwrap
 *    (daemon/container/standin.c, container-standin.c); opt-in for now
 *    (SBOX_READS_BY=standins), and then this reporter is not used.
 * What the round trips cost in wall clock beyond their CPU is the
 * scheduler's: each wakes a sleeper that may wait behind the other tasks
 * of a loaded CPU. Measured and NOT kept (the benchmark's rounds, in
 * medians of per-round ratios to the guard off, 11 to 16 rounds each on 2
 * cores shared with other jobs; single rounds range from 0.4x to 2.4x, so
 * the medians move by about 10% between runs of the same thing):
 *  - without SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (which could pull the two
 *    jobs of make -j2, one listener, onto one CPU) and with EEVDF's
 *    shortest slice for sbox-init alone (sched_runtime 0.1 ms, reset on
 *    fork): 1.25x against 1.22x as before, in the same rounds;
 *  - the same, with the slice inherited by the commands too: 0.93x and
 *    0.92x against 0.97x and 1.15x as before, but it makes every
 *    sandboxed process preempt the user's other programs (an editor, a
 *    terminal) at each wake-up: not a guard's business;
 *  - synchronous wake-ups with that inherited slice: 1.03x and 1.21x.
 * Kept: the notification and its fast path, with synchronous wake-ups as
 * before. The benchmark on this code (12 rounds, load about 2): +5.9%
 * wall clock and +6.0% CPU with read reports, +0.4% and +5.8% without;
 * (10 rounds, load about 5): +22.9% and +9.2%, +12.9% and +9.3%. The goal
 * (5% wall clock) is near on a quiet machine, not met on a loaded one. Every refused read is still reported exactly as before.
 *
 * Then sbox-init's own system calls (issue 24, second round). Each one
 * also runs the sandbox's own seccomp filter (bwrap's, which sbox-init is
 * under: about 9% of its time in a profile of fchmod calls), and every
 * call made between the wake-up and the answer, or between the answer and
 * sbox-init's sleep, delays the caller: with synchronous wake-ups the
 * caller is woken on sbox-init's CPU and runs when sbox-init sleeps.
 * Counted on the benchmark's job (strace -f of sbox-init, the same build;
 * perf trace -s for the whole: 189,099 system calls before, 156,531
 * after, for 22,301 notifications as root; 166,819 and 135,809 as a
 * user, whose tar restores no owner or mode), per notification, the main
 * loop's calls included:
 *   call (per build)              before  after
 *   read-only open (17,753)        6.2     4.2  poll, RECV, the path's
 *                                               pread, SEND (+ readlink
 *                                               of the cwd: 12%, relative)
 *   open for writing (1,510)       25.2    20.4
 *   unlinkat (909)                 22.0    18.0
 *   utimensat (605)                23.0    19.0
 *   fchown, fchmod (602 each)      20.0    16.0
 *   unlink (304)                   15.0    11.0
 * ("before": a poll of the listener after each answer, and the main
 * loop's poll and wait4 when that poll found nothing waiting, which is
 * the case counted; a loaded sbox-init found one waiting about half of
 * the time.) What went:
 *  - the poll after each answer: one notification per listener and
 *    wake-up; the main poll returns at once when more wait;
 *  - the wait4 at every wake-up: children are reaped when the signalfd
 *    says SIGCHLD (blocked, so queued for every child, re-parented
 *    zombies too);
 *  - the open of "/" for an absolute path (openat2 ignores the base),
 *    and the openat2 of "." for a bare name (the base folder is already
 *    held): 2 calls each;
 *  - the second readlink and fstat of an fd's file (init_walk_loc_of
 *    read them, init_walk_fd_path read them again): the link's text is
 *    now checked through the folder then held, whose entry of the name
 *    must be the very file -- the folder checked is the folder used;
 *  - the open and close of /proc/TID/status: kept open by thread id.
 *    procfs binds an open /proc/TID file to the task, not the number: it
 *    reads that task afresh each time and fails (ESRCH) once it is gone,
 *    so a kept one that reads is the caller's -- exact, not a cache of
 *    content;
 *  - umask(2) twice per creation when the caller's umask is sbox-init's
 *    own (022, most commands').
 * Kept although they cost, because nothing cheaper is exact: the open of
 * /proc/TID/mem for every write (a kept one reads the memory it was
 * opened on: after a vfork child's exec it is the parent's, the same
 * number, still alive -- the read-only fast path may use one, it only
 * chooses fast or slow path; process_vm_readv is refused by the sandbox's
 * filter), the readlink and stat that check the folder a relative path
 * starts from, the guard's lstats of HEAD at each folder of the path (a
 * git folder made by another process between two calls must be seen),
 * and ID_VALID before acting. Measured side by side (medians, the machine
 * loaded to 4-6 by other jobs): a read-only open's round trip 7.8-13.5 us
 * before, 5.5-11.0 us after (1.1-3.0 us with the guard off); an open for
 * writing plus fchmod, fchown and futimens 100-121 us before, 63-106 us
 * after (5-9 us off); the benchmark as root, read reports on: +28.9%
 * wall clock before and +3.7% after in one run (11 rounds; sbox-init's
 * CPU 0.57 s and 0.47 s per build), +21.5% and +18.7% in another (13
 * rounds; 0.71 s and 0.65 s). The benchmark's rounds range from 0.4x to
 * 2.4x on such a machine: as a user, one run gave +3.1% before and +18.3%
 * after (writes only -10.1%), i.e. noise. The system call counts above
 * are the figure that does not move; the 5% goal stays out of reach on a
 * loaded machine, where the two context switches of each round trip,
 * not sbox-init's work, make most of the cost.
 *
 * The floor of the mechanism (issue 24, fourth round). bench-guard now
 * also runs the job, in the session with the guard off, under
 * tests/bench/notify-floor.c: a supervisor that stops every open, openat
 * and openat2 at a listener (synchronous wake-ups, as here) and answers
 * each with CONTINUE at once, reading no path and deciding nothing. Over
 * the same job without it (15 interleaved rounds, load 0.5 to 1.5): as
 * root +12.1% wall clock (+4.2% CPU), as a user +6.6% (-0.6% CPU); the
 * guard with read reports in the same rounds +19.0% (+11.7%) and +10.7%
 * (+0.7%), writes only +12.5% and +7.6%. So a round trip per open, with
 * nothing in it, is already over the 5% goal on this machine: read
 * reports made by user notification cannot meet it, whatever sbox-init
 * decides in between. (Runs of 5 rounds move by +-10%: one read -1.5% for
 * the floor and -4.4% for the guard.) */
#include "protocol/ctl.h"
#include "daemon/init/init-dispatch.h"
#include "daemon/init/init-ops.h"
#include "daemon/init/init-reads.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"
#include "policy/guard-filter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The fast path's /proc/TID/mem descriptors, by listener and thread: a
 * stale one (the thread's process exited or exec'd) reads nothing and is
 * opened again. One whose thread id was reused by another process of the
 * same command would read that other process: it only ever decides fast
 * against slow path; the slow path reads the path again, fresh. */
#define INIT_READS_MEMS 64
static struct {
	int   lfd, fd;
	pid_t tid;
} init_reads_mem[INIT_READS_MEMS];

/* Read the caller's path for the fast path (a cached /proc/TID/mem). */
static int
init_reads_fast_str(struct init_sv_call *call, uint64_t addr, char *buf,
    size_t len)
{
	struct init_walk_caller t = { .call = call, .tid = call->tid,
	    .mem = -1 };
	size_t k = (size_t)call->tid % INIT_READS_MEMS;
	int e, tries;

	for (tries = 0; tries < 2; tries++) {
		if (init_reads_mem[k].fd > 0 && init_reads_mem[k].lfd ==
		    call->lfd && init_reads_mem[k].tid == call->tid)
			t.mem = init_reads_mem[k].fd;
		e = init_walk_read_str(&t, addr, buf, len);
		if (e != EFAULT || tries > 0 || t.mem < 0 ||
		    t.mem != init_reads_mem[k].fd)
			break;
		/* a cached one that read nothing: stale, open it again */
		close(t.mem);
		init_reads_mem[k].fd = 0;
		t.mem = -1;
	}
	if (t.mem >= 0 && t.mem != init_reads_mem[k].fd) {
		if (init_reads_mem[k].fd > 0)
			close(init_reads_mem[k].fd);
		init_reads_mem[k].fd = t.mem;
		init_reads_mem[k].lfd = call->lfd;
		init_reads_mem[k].tid = call->tid;
	}
	return e;
}

/* Fold path (absolute) lexically into out (size len): no ".", "..", "//"
 * or trailing '/'; 0, or -1 when it does not fit. */
static int
init_reads_fold(const char *path, char *out, size_t len)
{
	size_t o = 0, n;
	const char *c;

	for (c = path; *c != '\0'; c += n) {
		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
			continue;
		}
		if (o + n + 2 > len)
			return -1;
		out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* The absolute, folded path of (dirfd, path) as the caller names it; 0, or
 * -1 when it cannot be known (then nothing is reported). */
static int
init_reads_abs(pid_t tid, int dirfd, const char *path, char *out, size_t len)
{
	static char joined[PATH_MAX * 2 + 2];
	char p[48], base[PATH_MAX];
	ssize_t n;

	if (path[0] == '/')
		return init_reads_fold(path, out, len);
	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof p, "/proc/%d/cwd", (int)tid);
	else if (dirfd >= 0)
		snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)tid, dirfd);
	else
		return -1;
	if ((n = readlink(p, base, sizeof base - 1)) <= 0 || base[0] != '/')
		return -1;
	base[n] = '\0';
	snprintf(joined, sizeof joined, "%s/%s", base, path);
	return init_reads_fold(joined, out, len);
}

/* Let the kernel do this read-only open: SV_CONTINUE, which the one
 * answer function (init-supervise.c) sends for a read-only open only. */
static int
init_reads_continue(struct init_sv_call *call)
{
	call->reads = 1;
	return SV_CONTINUE;
}

/* The hidden rules of the spec, with their lengths: a path that none of
 * them holds is decided without looking at the others (the fast path's
 * common case). Rebuilt when the spec's rules change. */
#define INIT_READS_HIDDEN_MAX 256
static struct {
	const struct guard_rule *rules;
	size_t                   n_rules, n, len[INIT_READS_HIDDEN_MAX];
	const char              *path[INIT_READS_HIDDEN_MAX];
	int                      all; /* too many, or "/": always explain */
} init_reads_hid;

/* Could a hidden rule hold path (is one of them path or a parent)? */
static int
init_reads_maybe_hidden(const struct guard_spec *s, const char *path)
{
	size_t i, n;

	if (init_reads_hid.rules != s->rules ||
	    init_reads_hid.n_rules != s->n_rules) {
		memset(&init_reads_hid, 0, sizeof init_reads_hid);
		init_reads_hid.rules = s->rules;
		init_reads_hid.n_rules = s->n_rules;
		for (i = 0; i < s->n_rules; i++) {
			if (s->rules[i].access != GUARD_ACCESS_HIDDEN)
				continue;
			n = strlen(s->rules[i].path);
			if (n <= 1 || init_reads_hid.n == INIT_READS_HIDDEN_MAX)
				init_reads_hid.all = 1;
			else {
				init_reads_hid.path[init_reads_hid.n] =
				    s->rules[i].path;
				init_reads_hid.len[init_reads_hid.n++] = n;
			}
		}
	}
	if (init_reads_hid.all)
		return 1;
	for (i = 0; i < init_reads_hid.n; i++) {
		n = init_reads_hid.len[i];
		if (path[1] == init_reads_hid.path[i][1] && strncmp(path, init_reads_hid.path[i], n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* The hidden rule that decides path, or NULL. */
static const struct guard_rule *
init_reads_hidden(const char *path)
{
	const struct guard_spec *s = init_state_spec();
	const struct guard_rule *r;

	if (s == NULL || !init_reads_maybe_hidden(s, path))
		return NULL;
	r = guard_spec_explain(s, path);
	return r != NULL && r->access == GUARD_ACCESS_HIDDEN ? r : NULL;
}

/* The hidden rule that decides path (a stand-in's refusal), or NULL. */
const struct guard_rule *
init_reads_rule(const char *path)
{
	return path != NULL && path[0] == '/' ? init_reads_hidden(path) : NULL;
}

/* Is the open folder fd empty (only "." and "..")? Rewinds it. */
static int
init_reads_empty_dir(int fd)
{
	char buf[1024];
	long n, off;
	int empty = 1;

	while (empty && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (off = 0; off < n; ) {
			const char *name = buf + off + 19; /* d_name */
			unsigned short reclen;

			memcpy(&reclen, buf + off + 16, sizeof reclen);
			if (reclen == 0)
				break;
			if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
				empty = 0;
			off += reclen;
		}
	lseek(fd, 0, SEEK_SET);
	return empty;
}

/* Did the opened fd give the caller a hidden stand-in of path (a file bound
 * to /dev/null, or the empty folder at a hidden rule's own path)? */
static int
init_reads_standin(int fd, const char *path, const struct guard_rule *r)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return 0;
	if (S_ISCHR(st.st_mode))
		return st.st_rdev == makedev(1, 3);
	return S_ISDIR(st.st_mode) && strcmp(path, r->path) == 0 &&
	    init_reads_empty_dir(fd);
}

/* Handle a notified read-only open. */
int
init_reads_call(struct init_sv_call *call, int *fd)
{
	static char path[PATH_MAX], abs[PATH_MAX];
	char where[PATH_MAX + NAME_MAX + 2];
	const __u64 *a = call->data->args;
	struct init_walk_caller t = { .call = call, .tid = call->tid,
	    .mem = -1 };
	const struct guard_rule *r;
	const char *at;
	int flags, e;

	if (call->sc != SV_OPEN && call->sc != SV_OPENAT)
		return -1;
	flags = (int)(uint32_t)(call->sc == SV_OPEN ? a[1] : a[2]);
	if (flags & GUARD_READS_WRITE)
		return -1; /* a write: the guard's */
	/* fast path: a path that is not lexically hidden goes on at once */
	if (init_reads_fast_str(call, call->sc == SV_OPEN ? a[0] : a[1], path,
	    sizeof path) != 0 || path[0] == '\0' || init_reads_abs(call->tid,
	    call->sc == SV_OPENAT ? (int)(uint32_t)a[0] : AT_FDCWD, path, abs,
	    sizeof abs) != 0 || init_reads_hidden(abs) == NULL)
		return init_reads_continue(call);
	/* possibly hidden: read the path again (a fresh descriptor), then
	 * open it for the caller and answer with what it got */
	e = init_walk_read_str(&t, call->sc == SV_OPEN ? a[0] : a[1], path,
	    sizeof path);
	if (t.mem >= 0)
		close(t.mem);
	if (e != 0 || path[0] == '\0' || init_reads_abs(call->tid,
	    call->sc == SV_OPENAT ? (int)(uint32_t)a[0] : AT_FDCWD, path, abs,
	    sizeof abs) != 0 || init_reads_hidden(abs) == NULL)
		return init_reads_continue(call);
	where[0] = '\0';
	call->reads = 1;
	call->where = where;
	call->wherelen = sizeof where;
	e = init_dispatch_call(call, fd);
	if (e == SV_CONTINUE)
		return init_reads_continue(call);
	if (e == SV_ANSWERED)
		return e;
	at = where[0] != '\0' ? where : abs;
	if ((r = init_reads_hidden(at)) == NULL)
		return e;
	if ((e == ENOENT || e == EACCES || e == EPERM) ||
	    (e == 0 && *fd >= 0 && init_reads_standin(*fd, at, r)))
		init_state_report(call->id, call->tid, "read", at, e, r->rule,
		    NULL);
	return e;
}

/* A rename or link whose source a hidden path refused. */
void
init_reads_source(struct init_sv_call *call, const char *op, int dirfd,
    const char *path, int e, int gone)
{
	static char abs[PATH_MAX];
	const struct guard_rule *r;

	if (call == NULL || path == NULL || path[0] == '\0' ||
	    !((e == ENOENT && gone) || e == EBUSY) ||
	    init_reads_abs(call->tid, dirfd, path, abs, sizeof abs) != 0 ||
	    (r = init_reads_hidden(abs)) == NULL)
		return;
	init_state_report(call->id, call->tid, op, abs, e, r->rule, NULL);
}
