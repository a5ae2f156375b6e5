/* diskguard.c: the reserve on the state file system and the size limits
 * of the cache roots (see diskguard.h). */
#include "daemon/container/diskguard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/container/cachedir.h"
#include "daemon/container/child.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/caches.h"
#include "policy/config.h"
#include "policy/plan.h"

#define DISKGUARD_ROOTS_MAX 512
#define DISKGUARD_SLACK     (1024 * 1024)   /* growth allowed while short */

/* One cache root of a live session, as last measured. */
struct diskguard_root {
	char     *path;
	uint64_t  limit;
	int       whole;       /* a scratch folder: all of it, not the trees */
	uint64_t  bytes;       /* last measure */
	int       measured;
	long long at_ms;       /* when the last measure started */
	int       full;
	int       seen;        /* in the current set of live roots */
};

static struct diskguard_root diskguard_roots[DISKGUARD_ROOTS_MAX];
static int diskguard_nroots;
static struct event *diskguard_ev;
static int diskguard_held;          /* the reserve file is allocated */
static int diskguard_unsupported;   /* fallocate is not supported here */
static int diskguard_short;         /* free space < reserve at last look */
static long long diskguard_last_ms; /* last measure started */
static uint64_t diskguard_free_base;/* free bytes then */
static pid_t diskguard_pid;         /* measuring child, or 0 */
static int diskguard_fd = -1;       /* its output */
static struct event *diskguard_rev;
static char diskguard_out[DISKGUARD_ROOTS_MAX * 24];
static size_t diskguard_len;
static int diskguard_reaped, diskguard_eof, diskguard_was_short;
static char *diskguard_order[DISKGUARD_ROOTS_MAX]; /* roots measured */
static int diskguard_order_whole[DISKGUARD_ROOTS_MAX];
static int diskguard_norder;
static int diskguard_again;         /* freed while a measure ran: again */
#define DISKGUARD_WAITERS 16
static struct diskguard_waiter {    /* told when the measure after a */
	void (*done)(void *);       /* freeing is in (diskguard_freed) */
	void  *arg;
} diskguard_waiters[DISKGUARD_WAITERS];
static int diskguard_nwaiters;

struct diskguard_hooks diskguard_hooks;  /* named at start (main.c; daemon/hooks.h) */

static void diskguard_measure(void);

/* The reserve against the state disk's size (diskguard_size_reserve): the
 * default reserve over half the disk is scaled down to an eighth of it; a
 * reserve the person set is kept as set, with a warning. */
#define DISKGUARD_RESERVE_SHARE 2   /* at most 1/2 of the disk as it is */
#define DISKGUARD_RESERVE_SCALED 8  /* scaled down to 1/8 of the disk */
#define DISKGUARD_RESERVE_MIN (1ULL << 20) /* less: refuse to start */
static uint64_t diskguard_disk_total;   /* the state disk's size, at start */
static char diskguard_reserve_note[512];/* why the reserve is not as set */

/* Did the person set daemon.disk_reserve_mb (not the default)? */
static int
diskguard_reserve_set(void)
{
	return sboxd.config != NULL && sboxd.config->disk_reserve_mb >= 0;
}

/* The reserve in use: the configured one, scaled down on a state disk
 * too small for it (diskguard_size_reserve). */
static uint64_t
diskguard_want(void)
{
	uint64_t want = config_disk_reserve_bytes(sboxd.config);

	if (diskguard_reserve_set() || want == 0 || diskguard_disk_total == 0 ||
	    want <= diskguard_disk_total / DISKGUARD_RESERVE_SHARE)
		return want;
	want = diskguard_disk_total / DISKGUARD_RESERVE_SCALED;
	return want & ~((1ULL << 20) - 1);
}

/* <state_dir>/reserve (static buffer). */
static const char *
diskguard_reserve_path(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/reserve", sboxd.state_dir);
	return path;
}

/* Free and total bytes of the state file system (0 on error). */
static int
diskguard_space(uint64_t *free_b, uint64_t *total)
{
	struct statvfs v;

	if (statvfs(sboxd.state_dir, &v) == -1)
		return -1;
	*free_b = (uint64_t)v.f_bavail * v.f_frsize;
	*total = (uint64_t)v.f_blocks * v.f_frsize;
	return 0;
}

/* Allocate the reserve file when there is room for it twice over. */
static void
diskguard_take(void)
{
	uint64_t want = diskguard_want(), fr, tot;
	int fd;

	if (diskguard_held || diskguard_unsupported || want == 0 ||
	    diskguard_space(&fr, &tot) == -1 || fr < 2 * want)
		return;
	fd = open(diskguard_reserve_path(), O_WRONLY | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	/* a larger file of an earlier, larger reserve shrinks first */
	if (ftruncate(fd, (off_t)want) == 0 && fallocate(fd, 0, 0,
	    (off_t)want) == 0)
		diskguard_held = 1;
	else {
		if (errno == EOPNOTSUPP)
			diskguard_unsupported = 1;
		if (errno != ENOSPC)
			log_warn("disk reserve: cannot allocate %s: %s%s",
			    diskguard_reserve_path(), strerror(errno),
			    diskguard_unsupported ? " (the file system cannot "
			    "allocate ahead: sboxd only watches free space)" : "");
		if (ftruncate(fd, 0) == -1)
			log_warn("disk reserve: %s", strerror(errno));
	}
	close(fd);
}

/* Free the reserve (space is short). */
static void
diskguard_release(void)
{
	if (unlink(diskguard_reserve_path()) == -1 && errno != ENOENT)
		log_warn("disk reserve: cannot free %s: %s",
		    diskguard_reserve_path(), strerror(errno));
	if (diskguard_held)
		log_warn("the state file system is short of space: sboxd freed "
		    "its reserve of %llu MiB for its own records", (unsigned long
		    long)(diskguard_want() >> 20));
	diskguard_held = 0;
}

/* The cache root (scratch 0) or the scratch folder (1) a session's plan
 * binds read-write, or NULL (static buffer). */
static const char *
diskguard_root_of(const struct plan *plan, int scratch)
{
	static char root[2][PATH_MAX];
	const struct plan_mount *m;
	char *slash;
	size_t i;

	if (plan == NULL || !plan->sandboxed)
		return NULL;
	for (i = 0; i < plan->n_mounts; i++) {
		m = &plan->mounts[i];
		if (m->kind != PLAN_MOUNT_RW_BIND || m->rule == NULL ||
		    strcmp(m->rule, scratch ? PLAN_RULE_SCRATCH :
		    PLAN_RULE_CACHES) != 0 || m->src == NULL ||
		    strlen(m->src) >= sizeof root[0])
			continue;
		snprintf(root[scratch], sizeof root[0], "%s", m->src);
		if (!scratch && (slash = strrchr(root[0], '/')) != NULL &&
		    slash != root[0])
			*slash = '\0';
		return root[scratch];
	}
	return NULL;
}

/* Does a session's plan bind root (as its caches or its scratch folder)? */
int
diskguard_binds(const struct plan *plan, const char *root)
{
	const char *r;
	int k;

	for (k = 0; k < 2; k++)
		if ((r = diskguard_root_of(plan, k)) != NULL &&
		    strcmp(r, root) == 0)
			return 1;
	return 0;
}

/* The entry of root (made when make; NULL if none or the table is full). */
static struct diskguard_root *
diskguard_find(const char *root, int make)
{
	int i;

	for (i = 0; i < diskguard_nroots; i++)
		if (strcmp(diskguard_roots[i].path, root) == 0)
			return &diskguard_roots[i];
	if (!make || diskguard_nroots == DISKGUARD_ROOTS_MAX)
		return NULL;
	if ((diskguard_roots[diskguard_nroots].path = strdup(root)) == NULL)
		return NULL;
	return &diskguard_roots[diskguard_nroots++];
}

/* Tell the rooms above that root is full: the commands of the sessions
 * that bind it are killed (command/command-session.c subscribes). */
static void
diskguard_stop_writers(const char *root)
{
	events_tell("disk.root_full", NULL, json_pack("{s:s}", "root", root));
}

/* In the child: write the size of each root in order, one line each. */
static void
diskguard_child(int fd)
{
	const struct cache_tree *t;
	struct cachedir_usage u;
	struct stat st;
	char line[32];
	int i, rfd, n;

	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD };
	size_t k;

	for (k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
		signal(sigs[k], SIG_DFL);
	for (i = 0; i < diskguard_norder; i++) {
		memset(&u, 0, sizeof u);
		if ((rfd = cachedir_open(diskguard_order[i])) >= 0 &&
		    fstat(rfd, &st) == 0 && diskguard_order_whole[i])
			cachedir_measure(rfd, ".", st.st_dev, &u);
		else if (rfd >= 0 && fstat(rfd, &st) == 0)
			for (t = caches_table; t->name != NULL; t++)
				cachedir_measure(rfd, t->name, st.st_dev, &u);
		if (rfd >= 0)
			close(rfd);
		n = snprintf(line, sizeof line, "%llu\n",
		    (unsigned long long)u.bytes);
		if (write(fd, line, (size_t)n) != n)
			_exit(1);
	}
	_exit(0);
}

/* The measure is in: mark full roots, stop their writers. */
static void
diskguard_measured(void)
{
	struct diskguard_root *r;
	char *p = diskguard_out, *nl;
	unsigned long long b;
	int i, was_full;

	diskguard_out[diskguard_len < sizeof diskguard_out ? diskguard_len :
	    sizeof diskguard_out - 1] = '\0';
	for (i = 0; i < diskguard_norder; i++) {
		if ((nl = strchr(p, '\n')) == NULL ||
		    sscanf(p, "%llu", &b) != 1)
			break;
		p = nl + 1;
		if ((r = diskguard_find(diskguard_order[i], 0)) == NULL)
			continue;
		was_full = r->full;
		/* while space is short, a root that grows (or is first seen
		 * holding more than the slack) is what fills the disk; it
		 * stays stopped until space is back and it is under its
		 * limit */
		r->full = b > r->limit || (diskguard_was_short && (was_full ||
		    b > (r->measured ? r->bytes : 0) + DISKGUARD_SLACK));
		if (r->full && !was_full)
			log_warn("%s %s holds %llu MiB (limit %llu MiB%s): its "
			    "sessions' commands are stopped until it is cleared",
			    r->whole ? "scratch folder" : "package caches",
			    r->path, b >> 20, (unsigned long long)(r->limit >>
			    20), diskguard_was_short ? ", and the disk is short "
			    "of space" : "");
		r->bytes = b;
		r->measured = 1;
		r->at_ms = diskguard_last_ms;
		if (r->full)
			diskguard_stop_writers(r->path);
	}
}

/* Tell those waiting for a measure after a freeing that it is in. */
static void
diskguard_tell(void)
{
	struct diskguard_waiter w[DISKGUARD_WAITERS];
	int i, n = diskguard_nwaiters;

	memcpy(w, diskguard_waiters, sizeof w);
	diskguard_nwaiters = 0;
	for (i = 0; i < n; i++)
		w[i].done(w[i].arg);
}

/* The measuring child is done (output and exit): take its answer. */
static void
diskguard_job_done(void)
{
	int i;

	if (!diskguard_reaped || !diskguard_eof)
		return;
	diskguard_measured();
	for (i = 0; i < diskguard_norder; i++)
		free(diskguard_order[i]);
	diskguard_norder = 0;
	diskguard_pid = 0;
	if (diskguard_again) {	/* that walk began before space was freed */
		diskguard_again = 0;
		diskguard_measure();
		if (diskguard_pid != 0)
			return;
	}
	diskguard_tell();
}

/* The child's output. */
static void
diskguard_on_read(evutil_socket_t fd, short what, void *arg)
{
	ssize_t n;

	(void)what; (void)arg;
	n = diskguard_len < sizeof diskguard_out - 1 ? read(fd, diskguard_out +
	    diskguard_len, sizeof diskguard_out - 1 - diskguard_len) : 0;
	if (n > 0) {
		diskguard_len += (size_t)n;
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_free(diskguard_rev);
	diskguard_rev = NULL;
	close(diskguard_fd);
	diskguard_fd = -1;
	diskguard_eof = 1;
	diskguard_job_done();
}

/* The child exited. */
static void
diskguard_on_exit(pid_t pid, int status, void *arg)
{
	(void)pid; (void)status; (void)arg;
	diskguard_reaped = 1;
	diskguard_job_done();
}

/* Start measuring the live roots (unless a measure runs). */
static void
diskguard_measure(void)
{
	struct diskguard_root *r;
	const struct plan *plan;
	const void *it = NULL;
	const char *root;
	sbox_error err;
	uint64_t total, limit;
	int p[2], i, k;

	if (diskguard_pid != 0)
		return;
	for (i = 0; i < diskguard_nroots; i++)
		diskguard_roots[i].seen = 0;
	while (diskguard_hooks.next != NULL &&
	    diskguard_hooks.next(&it, &plan, &limit)) {
		for (k = 0; k < 2; k++) {
			if ((root = diskguard_root_of(plan, k)) == NULL ||
			    (r = diskguard_find(root, 1)) == NULL)
				continue;
			r->seen = 1;
			r->whole = k;
			r->limit = limit;
		}
	}
	/* forget roots no live session binds */
	for (i = 0; i < diskguard_nroots; ) {
		if (diskguard_roots[i].seen) {
			i++;
			continue;
		}
		free(diskguard_roots[i].path);
		diskguard_roots[i] = diskguard_roots[--diskguard_nroots];
	}
	if (diskguard_nroots == 0)
		return;
	for (i = 0; i < diskguard_nroots; i++)
		if ((diskguard_order[diskguard_norder] = strdup(
		    diskguard_roots[i].path)) != NULL)
			diskguard_order_whole[diskguard_norder++] =
			    diskguard_roots[i].whole;
	diskguard_last_ms = sboxd_now_ms();
	diskguard_was_short = diskguard_short;
	if (diskguard_space(&diskguard_free_base, &total) == -1)
		diskguard_free_base = 0;
	diskguard_len = 0;
	diskguard_reaped = diskguard_eof = 0;
	if (pipe2(p, O_CLOEXEC) == -1)
		goto fail;
	if ((diskguard_pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	if (diskguard_pid == 0) {
		if (p[1] != 3 && (dup2(p[1], 3) == -1))
			_exit(1);
		if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
			for (i = 4; i < 65536; i++)
				close(i);
		diskguard_child(3);
	}
	close(p[1]);
	diskguard_fd = p[0];
	evutil_make_socket_nonblocking(diskguard_fd);
	error_clear(&err);
	if ((diskguard_rev = event_new(sboxd.base, diskguard_fd, EV_READ |
	    EV_PERSIST, diskguard_on_read, NULL)) == NULL ||
	    event_add(diskguard_rev, NULL) == -1 ||
	    child_watch(diskguard_pid, diskguard_on_exit, NULL, &err) == -1) {
		log_error("disk guard: cannot follow the cache measure");
		if (diskguard_rev != NULL)
			event_free(diskguard_rev);
		diskguard_rev = NULL;
		close(diskguard_fd);
		diskguard_fd = -1;
		child_reap_now(diskguard_pid, 0);
		diskguard_pid = 0;
		goto fail;
	}
	return;
fail:
	for (i = 0; i < diskguard_norder; i++)
		free(diskguard_order[i]);
	diskguard_norder = 0;
}

/* Look at the free space: short means less than the reserve. */
static void
diskguard_look(void)
{
	uint64_t want = diskguard_want(), fr, tot;
	int was = diskguard_short;

	if (diskguard_space(&fr, &tot) == -1)
		return;
	if (diskguard_held && fr < want)
		diskguard_release();
	if (!diskguard_held)
		diskguard_take();
	/* short from when the reserve had to go until there is room to take
	 * it again (twice over): no flapping at the edge */
	diskguard_short = want > 0 && fr < (diskguard_held ? want : 2 * want);
	if (diskguard_short && !was)
		diskguard_measure();
}

/* Does a live session bind a root never measured? */
static int
diskguard_unmeasured(void)
{
	const struct plan *plan;
	const void *it = NULL;
	struct diskguard_root *r;
	const char *root;
	uint64_t limit;
	int k;

	while (diskguard_hooks.next != NULL &&
	    diskguard_hooks.next(&it, &plan, &limit))
		for (k = 0; k < 2; k++)
			if ((root = diskguard_root_of(plan, k)) != NULL &&
			    ((r = diskguard_find(root, 0)) == NULL ||
			    !r->measured))
				return 1;
	return 0;
}

/* Timer: look at the space, measure now and then. */
static void
diskguard_tick(evutil_socket_t fd, short what, void *arg)
{
	struct timeval tv = { DISKGUARD_TICK_MS / 1000,
	    (DISKGUARD_TICK_MS % 1000) * 1000 };

	long long since = sboxd_now_ms() - diskguard_last_ms;
	uint64_t fr, tot;

	(void)fd; (void)what; (void)arg;
	diskguard_look();
	/* a walk costs: only while space is short, when a root was never
	 * measured, when free space fell by DISKGUARD_DROP since the last
	 * walk (someone wrote that much), or once in DISKGUARD_IDLE_S */
	if (diskguard_short || (since >= DISKGUARD_MEASURE_S * 1000 &&
	    (diskguard_unmeasured() || since >= DISKGUARD_IDLE_S * 1000 ||
	    (diskguard_space(&fr, &tot) == 0 && fr + DISKGUARD_DROP <
	    diskguard_free_base))))
		diskguard_measure();
	event_add(diskguard_ev, &tv);
}

/* At start, before the store opens: compare the reserve with the state
 * disk. The default reserve over half the disk is scaled down to an
 * eighth of it, one the person set is kept (either said in the log by
 * diskguard_start and in daemon status); a disk too small for even
 * DISKGUARD_RESERVE_MIN refuses the start, saying what to set. 0, or -1
 * with err. */
int
diskguard_size_reserve(sbox_error *err)
{
	uint64_t want = config_disk_reserve_bytes(sboxd.config), fr, got;

	diskguard_reserve_note[0] = '\0';
	diskguard_disk_total = 0;
	if (diskguard_space(&fr, &diskguard_disk_total) == -1)
		diskguard_disk_total = 0;	/* not known: as set */
	if (want == 0 || diskguard_disk_total == 0 ||
	    want <= diskguard_disk_total / DISKGUARD_RESERVE_SHARE)
		return 0;
	if (diskguard_reserve_set()) {	/* as set, said */
		snprintf(diskguard_reserve_note, sizeof diskguard_reserve_note,
		    "the disk reserve of %llu MiB (daemon.disk_reserve_mb) is "
		    "over half of the state file system (%s, %llu MiB): it is "
		    "kept as set, so the disk counts as short of space %s",
		    (unsigned long long)(want >> 20), sboxd.state_dir,
		    (unsigned long long)(diskguard_disk_total >> 20),
		    want * 2 > diskguard_disk_total ? "from the start" :
		    "early");
		return 0;
	}
	if ((got = diskguard_want()) < DISKGUARD_RESERVE_MIN)
		return error_set(err, E_LIMIT, "the state folder %s is on a "
		    "file system of %llu KiB, too small for sboxd's disk "
		    "reserve (daemon.disk_reserve_mb %llu, or even %llu MiB "
		    "scaled down): put the state folder on a larger disk "
		    "(--state-dir), or set \"daemon\": {\"disk_reserve_mb\": 0} "
		    "in %s to run without a reserve", sboxd.state_dir,
		    (unsigned long long)(diskguard_disk_total >> 10),
		    (unsigned long long)(want >> 20),
		    (unsigned long long)(DISKGUARD_RESERVE_MIN >> 20),
		    sboxd.config_path ? sboxd.config_path : "the config");
	snprintf(diskguard_reserve_note, sizeof diskguard_reserve_note,
	    "the state file system (%s) is %llu MiB, too small for the disk "
	    "reserve of %llu MiB (daemon.disk_reserve_mb): scaled down to "
	    "%llu MiB, an eighth of it; set daemon.disk_reserve_mb to choose "
	    "(0: no reserve), or move the state folder to a larger disk",
	    sboxd.state_dir, (unsigned long long)(diskguard_disk_total >> 20),
	    (unsigned long long)(want >> 20), (unsigned long long)(got >> 20));
	return 0;
}

/* Take the reserve and start the timer (NULL: stop). */
void
diskguard_start(struct event_base *base)
{
	struct timeval tv = { 0, 0 };
	int i;

	if (base == NULL) {
		if (diskguard_ev != NULL)
			event_free(diskguard_ev);
		diskguard_ev = NULL;
		for (i = 0; i < diskguard_nroots; i++)
			free(diskguard_roots[i].path);
		diskguard_nroots = 0;
		return;
	}
	if (diskguard_reserve_note[0] != '\0')
		log_warn("%s", diskguard_reserve_note);
	diskguard_take();
	if (diskguard_ev == NULL)
		diskguard_ev = evtimer_new(base, diskguard_tick, NULL);
	if (diskguard_ev != NULL)
		event_add(diskguard_ev, &tv);
}

/* Space was freed (sbox cache clear, a scratch folder removed): look at
 * the disk and measure the roots again now, not at the next tick (a root
 * cleared was refused until then); a walk running now began before the
 * freeing, so another follows it. */
void
diskguard_freed(void (*done)(void *), void *arg)
{
	if (diskguard_ev != NULL) {	/* started */
		diskguard_look();
		if (diskguard_pid != 0)
			diskguard_again = 1;
		else
			diskguard_measure();
	}
	if (done == NULL)
		return;
	if (diskguard_pid == 0 || diskguard_nwaiters == DISKGUARD_WAITERS) {
		done(arg);	/* nothing to wait for (or too many waiting) */
		return;
	}
	diskguard_waiters[diskguard_nwaiters].done = done;
	diskguard_waiters[diskguard_nwaiters++].arg = arg;
}

/* Before a command of a session starts (its plan and project), or a
 * session is made (plan NULL). */
int
diskguard_check(const struct plan *plan, const char *project, sbox_error *err)
{
	struct diskguard_root *r;
	const char *root;
	int k;

	diskguard_look();
	for (k = 0; k < 2; k++) {
		if ((root = diskguard_root_of(plan, k)) == NULL ||
		    (r = diskguard_find(root, 0)) == NULL)
			continue;
		/* a command starts: its roots are measured again when their
		 * last measure is old (in the background; this one runs) */
		if (sboxd_now_ms() - r->at_ms >= DISKGUARD_EXEC_S * 1000)
			diskguard_measure();
		if (!r->full)
			continue;
		if (k == 1)
			return error_set(err, E_LIMIT, "this session's scratch "
			    "folder (%s) holds %llu MiB, over its limit of %llu "
			    "MiB%s: no command runs in it; close the session",
			    root, (unsigned long long)(r->bytes >> 20),
			    (unsigned long long)(r->limit >> 20),
			    diskguard_short ? " while the disk is short of "
			    "space" : "");
		return error_set(err, E_LIMIT, "this session's package caches "
		    "(%s) hold %llu MiB, over their limit of %llu MiB%s: no "
		    "command runs in it until they are cleared (sbox cache "
		    "clear --project %s)", root, (unsigned long long)(r->bytes >>
		    20), (unsigned long long)(r->limit >> 20), diskguard_short ?
		    " while the disk is short of space" : "", project ?
		    project : "DIR");
	}
	return 0;
}

/* Which bound holds each of a session's writable places, for
 * sandbox.status: its caches and scratch folder are measured by this
 * guard (not enforced by the kernel: a writer can outrun a measure); its
 * /tmp is a tmpfs of the plan's size, which the kernel bounds. */
json_t *
diskguard_bounds(const struct plan *plan, uint64_t limit)
{
	json_t *o = json_object();
	const char *root;
	int k;

	for (k = 0; plan != NULL && k < 2; k++) {
		if ((root = diskguard_root_of(plan, k)) == NULL)
			continue;
		json_object_set_new(o, k ? "scratch" : "caches", json_pack(
		    "{s:s, s:s, s:I, s:b, s:s}", "path", root, "bound",
		    "measured", "limit_bytes", (json_int_t)limit, "kernel", 0,
		    "how", "measured by sboxd every 30 s, before commands and "
		    "after a freeing; over the limit its commands are stopped "
		    "and refused (each file bounded by RLIMIT_FSIZE)"));
	}
	if (plan != NULL && plan->sandboxed)
		json_object_set_new(o, "tmp", json_pack("{s:s, s:s, s:I, s:b}",
		    "path", "/tmp", "bound", "tmpfs", "limit_bytes",
		    (json_int_t)plan->limits.tmp_bytes, "kernel", 1));
	return o;
}

/* The state file system, for sandbox.check and daemon.status. */
json_t *
diskguard_describe(void)
{
	uint64_t fr = 0, tot = 0;
	json_t *full = json_array();
	int i;

	diskguard_space(&fr, &tot);
	for (i = 0; i < diskguard_nroots; i++)
		if (diskguard_roots[i].full)
			json_array_append_new(full, json_pack("{s:s, s:I, s:I}",
			    "root", diskguard_roots[i].path, "bytes",
			    (json_int_t)diskguard_roots[i].bytes, "limit_bytes",
			    (json_int_t)diskguard_roots[i].limit));
	return json_pack("{s:s, s:I, s:I, s:I, s:b, s:b, s:o, s:I, s:s?}",
	    "state_dir",
	    sboxd.state_dir, "free_bytes", (json_int_t)fr, "total_bytes",
	    (json_int_t)tot, "reserve_bytes", (json_int_t)
	    diskguard_want(), "reserve_held",
	    diskguard_held, "short", fr < diskguard_want(), "full_caches", full,
	    "reserve_configured_bytes", (json_int_t)config_disk_reserve_bytes(
	    sboxd.config), "reserve_warning", diskguard_reserve_note[0] ?
	    diskguard_reserve_note : NULL);
}
