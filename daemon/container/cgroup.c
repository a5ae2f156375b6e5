/* cgroup.c: sboxd's own cgroups (v1, v2, delegated v2), removing what dead
 * sboxd processes left behind, and removing busy cgroups later. */
#include "daemon/container/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/log.h"

#define CGROUP_RETRY_MS    200
#define CGROUP_RETRY_MAX   150   /* 30 s, then give up (logged) */
#define CGROUP_PENDING_MAX 256

static char cgroup_root[PATH_MAX] = "/sys/fs/cgroup";
static char cgroup_self[PATH_MAX] = "/proc/self/cgroup";

struct cgroup_pending {
	char *dir;
	int   tries;
};
static struct cgroup_pending cgroup_queue[CGROUP_PENDING_MAX];
static int cgroup_nqueue;
static struct event *cgroup_retry_ev;

/* Use other paths for the cgroup root and /proc/self/cgroup (tests). */
void
cgroup_set_paths(const char *root, const char *self)
{
	snprintf(cgroup_root, sizeof cgroup_root, "%s", root ? root :
	    "/sys/fs/cgroup");
	snprintf(cgroup_self, sizeof cgroup_self, "%s", self ? self :
	    "/proc/self/cgroup");
}

/* Write text to dir/file; -1 with errno. */
int
cgroup_write(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	int fd, rc = 0, e;
	size_t n = strlen(text);

	if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* O_CREAT: a fake tree has no files of its own; in cgroupfs the
	 * file exists (or creating it fails) */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return -1;
	if (write(fd, text, n) != (ssize_t)n)
		rc = -1;
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Our cgroup folder for a v1 controller, or in the v2 tree for "". */
int
cgroup_own(const char *ctrl, char *out, size_t size)
{
	char line[1024], *hier, *ctrls, *path, want[64], list[600];
	struct stat st;
	FILE *f;
	int found = -1;

	if ((f = fopen(cgroup_self, "re")) == NULL)
		return -1;
	snprintf(want, sizeof want, ",%s,", ctrl);
	while (found < 0 && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((hier = strchr(line, ':')) == NULL ||
		    (path = strchr(hier + 1, ':')) == NULL)
			continue;
		ctrls = hier + 1;
		*hier = '\0';
		*path++ = '\0';
		if (path[0] != '/' || strstr(path, "/..") != NULL)
			continue;
		if (strcmp(path, "/") == 0)
			path = "";
		if (*ctrl != '\0') {
			snprintf(list, sizeof list, ",%s,", ctrls);
			if (strstr(list, want) == NULL)
				continue;
			snprintf(out, size, "%s/%s%s", cgroup_root, ctrl, path);
		} else {
			if (*ctrls != '\0' || strcmp(line, "0") != 0)
				continue;
			snprintf(out, size, "%s%s", cgroup_root, path);
		}
		if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
			found = 0;
	}
	fclose(f);
	return found;
}

/* Read the first line of dir/file into buf; -1 when it cannot be read. */
static int
cgroup_read(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, (int)size, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* True when word is one of the space-separated words of list. */
static int
cgroup_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}

/* Move this process into <own>/sboxd and enable controllers for <own>. */
int
cgroup_delegate(char *parent, size_t size, sbox_error *err)
{
	static const struct { const char *name; int bit; } ctrls[] = {
		{ "memory", CGROUP_MEMORY }, { "pids", CGROUP_PIDS },
		{ "cpu", CGROUP_CPU },
	};
	char own[PATH_MAX], leaf[PATH_MAX + 32], avail[PATH_MAX + 32], pid[32],
	    w[64];
	int i, got = 0;

	if (cgroup_own("", own, sizeof own) == -1)
		return error_set(err, E_SANDBOX_UNAVAILABLE, "no cgroup v2 of "
		    "our own under %s", cgroup_root);
	snprintf(leaf, sizeof leaf, "%s/cgroup.subtree_control", own);
	snprintf(avail, sizeof avail, "%s/cgroup.procs", own);
	if (access(leaf, W_OK) == -1 || access(avail, W_OK) == -1)
		return error_set(err, E_SANDBOX_UNAVAILABLE, "our cgroup %s is "
		    "not delegated to us (run sboxd under systemd with "
		    "Delegate=yes)", own);
	if (cgroup_read(own, "cgroup.controllers", avail, sizeof avail) == -1)
		avail[0] = '\0';
	snprintf(leaf, sizeof leaf, "%s/sboxd", own);
	if (mkdir(leaf, 0755) == -1 && errno != EEXIST)
		return error_set_errno(err, E_SANDBOX_UNAVAILABLE, errno,
		    "cannot create %s", leaf);
	snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	if (cgroup_write(leaf, "cgroup.procs", pid) == -1)
		return error_set_errno(err, E_SANDBOX_UNAVAILABLE, errno,
		    "cannot move sboxd into %s", leaf);
	for (i = 0; i < 3; i++) {
		if (!cgroup_has_word(avail, ctrls[i].name))
			continue;
		snprintf(w, sizeof w, "+%s\n", ctrls[i].name);
		if (cgroup_write(own, "cgroup.subtree_control", w) == 0)
			got |= ctrls[i].bit;
		else
			log_warn("cgroup %s: cannot enable %s: %s", own,
			    ctrls[i].name, strerror(errno));
	}
	/* sboxd itself weighs more than one sandbox */
	if (got & CGROUP_CPU)
		cgroup_write(leaf, "cpu.weight", "500\n");
	snprintf(parent, size, "%s", own);
	return got;
}

/* The boot id (the kernel's random boot_id, 36 characters), or "". */
static void
cgroup_boot_id(char *out, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	out[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(out, (int)size, f) == NULL)
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

/* A process's start time (clock ticks since boot, /proc/PID/stat field
 * 22), or 0 when it is gone. */
static unsigned long long
cgroup_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the name (field 2) may hold spaces and parentheses */
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &t) != 1)
		return 0;
	return t;
}

/* Is the sboxd process pid that started at start gone (dead, or the pid
 * is another process now)? This process counts as gone (it made none
 * before it started). */
int
cgroup_owner_gone(pid_t pid, unsigned long long start)
{
	if (pid <= 0 || pid == getpid())
		return 1;
	if (kill(pid, 0) == -1 && errno == ESRCH)
		return 1;
	return cgroup_start_time(pid) != start;
}

/* Mark dir (a cgroup this process made) as ours: its xattr
 * CGROUP_MARK_XATTR = "<boot id> <pid> <start time>". */
int
cgroup_mark(const char *dir)
{
	char boot[64], val[160];
	int n;

	cgroup_boot_id(boot, sizeof boot);
	if (boot[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	n = snprintf(val, sizeof val, "%s %ld %llu", boot, (long)getpid(),
	    cgroup_start_time(getpid()));
	return setxattr(dir, CGROUP_MARK_XATTR, val, (size_t)n, 0);
}

/* The name of this process's next container cgroup below base, in out:
 * base/sbox-<pid>-<start time>-<n>. The name is the mark made in the same
 * step as the folder (mkdir), so a crash before the xattr is written
 * leaves nothing the sweep cannot tell as ours; base/sbox-<pid>-<n> when
 * the start time cannot be read. -1 when it does not fit. */
int
cgroup_name(char *out, size_t size, const char *base, unsigned n)
{
	static unsigned long long start;
	int len;

	if (start == 0)
		start = cgroup_start_time(getpid());
	if (start != 0)
		len = snprintf(out, size, "%s/sbox-%ld-%llu-%u", base,
		    (long)getpid(), start, n);
	else
		len = snprintf(out, size, "%s/sbox-%ld-%u", base,
		    (long)getpid(), n);
	return len < 0 || (size_t)len >= size ? -1 : 0;
}

/* Parse a container cgroup's name: sbox-<pid>-<n> (*start = 0) or
 * sbox-<pid>-<start>-<n>. 0, or -1 when it is not one of those. */
int
cgroup_name_parse(const char *name, long *pid, unsigned long long *start)
{
	const char *p;
	char *end;
	int fields = 0;

	if (strncmp(name, "sbox-", 5) != 0)
		return -1;
	*start = 0;
	*pid = 0;
	for (p = name + 5; fields < 3; p = end + 1) {
		unsigned long long v;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno != 0)
			return -1;
		if (fields == 0) {
			if (v == 0 || v > INT_MAX)
				return -1;
			*pid = (long)v;
		} else if (fields == 1) {
			*start = v;
		}
		fields++;
		if (*end == '\0')
			break;
		if (*end != '-')
			return -1;
	}
	if (*end != '\0' || fields < 2)
		return -1;
	if (fields == 2)
		*start = 0;	/* sbox-<pid>-<n>: the second field is n */
	return 0;
}

/* Was dir marked by an sboxd of this boot that is gone now? */
int
cgroup_mark_gone(const char *dir)
{
	char boot[64], val[160], vboot[64];
	unsigned long long start;
	ssize_t n;
	long pid;

	if ((n = getxattr(dir, CGROUP_MARK_XATTR, val, sizeof val - 1)) <= 0)
		return 0;   /* not marked: not ours, whatever its name says */
	val[n] = '\0';
	cgroup_boot_id(boot, sizeof boot);
	if (sscanf(val, "%63s %ld %llu", vboot, &pid, &start) != 3 ||
	    boot[0] == '\0' || strcmp(vboot, boot) != 0 || pid <= 0 ||
	    pid > INT_MAX)
		return 0;
	return cgroup_owner_gone((pid_t)pid, start);
}

/* Kill every process still in the cgroup at dir. */
static void
cgroup_kill_all(const char *dir)
{
	char path[PATH_MAX];
	FILE *f;
	long pid;

	int fd;

	snprintf(path, sizeof path, "%s/cgroup.kill", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0) {
		ssize_t n = write(fd, "1\n", 2);

		close(fd);
		if (n == 2)
			return;
	}
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 1 && pid != (long)getpid())
			kill((pid_t)pid, SIGKILL);
	fclose(f);
}

/* Try to remove dir once; 0 when gone, -1 while busy. */
static int
cgroup_try_remove(const char *dir)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	if (errno == EBUSY || errno == ENOTEMPTY) {
		cgroup_kill_all(dir);
		return -1;
	}
	log_warn("cannot remove cgroup %s: %s", dir, strerror(errno));
	return 0;
}

/* Retry the queued removals. */
static void
cgroup_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct timeval tv = { 0, CGROUP_RETRY_MS * 1000 };
	int i = 0;

	(void)fd; (void)what; (void)arg;
	while (i < cgroup_nqueue) {
		struct cgroup_pending *p = &cgroup_queue[i];

		if (cgroup_try_remove(p->dir) == 0 ||
		    ++p->tries >= CGROUP_RETRY_MAX) {
			if (p->tries >= CGROUP_RETRY_MAX)
				log_warn("cgroup %s stays busy; giving up on "
				    "removing it", p->dir);
			free(p->dir);
			cgroup_queue[i] = cgroup_queue[--cgroup_nqueue];
			continue;
		}
		i++;
	}
	if (cgroup_nqueue > 0 && cgroup_retry_ev != NULL)
		evtimer_add(cgroup_retry_ev, &tv);
}

/* Remove a cgroup now, or queue it for the retry timer. */
void
cgroup_remove(const char *dir)
{
	struct timeval tv = { 0, CGROUP_RETRY_MS * 1000 };
	int i;

	if (cgroup_try_remove(dir) == 0)
		return;
	for (i = 0; i < cgroup_nqueue; i++)
		if (strcmp(cgroup_queue[i].dir, dir) == 0)
			return;
	if (cgroup_nqueue == CGROUP_PENDING_MAX ||
	    (cgroup_queue[cgroup_nqueue].dir = strdup(dir)) == NULL) {
		log_warn("cgroup %s is busy and the retry queue is full", dir);
		return;
	}
	cgroup_queue[cgroup_nqueue++].tries = 0;
	if (cgroup_retry_ev != NULL && !evtimer_pending(cgroup_retry_ev, NULL))
		evtimer_add(cgroup_retry_ev, &tv);
}

/* Cgroup folders still waiting to be removed. */
int
cgroup_pending(void)
{
	return cgroup_nqueue;
}

/* Remove the sbox-<pid>-<n> cgroups of gone sboxd processes under dir. */
int
cgroup_sweep(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		unsigned long long start;
		char val[8];
		long pid;
		int gone;

		if (cgroup_name_parse(de->d_name, &pid, &start) < 0)
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >=
		    (int)sizeof path)
			continue;
		/* the xattr decides when there is one; a name with the
		 * start time decides alone (a crash before the mark) */
		if (getxattr(path, CGROUP_MARK_XATTR, val, sizeof val) >= 0 ||
		    errno == ERANGE || start == 0)
			gone = cgroup_mark_gone(path);
		else
			gone = cgroup_owner_gone((pid_t)pid, start);
		if (!gone)
			continue;
		n++;
		cgroup_remove(path);
	}
	closedir(d);
	return n;
}

/* Start (base) or stop (NULL) the retry timer. */
void
cgroup_timer(struct event_base *base)
{
	struct timeval tv = { 0, CGROUP_RETRY_MS * 1000 };
	int i;

	if (base == NULL) {
		if (cgroup_retry_ev != NULL)
			event_free(cgroup_retry_ev);
		cgroup_retry_ev = NULL;
		for (i = 0; i < cgroup_nqueue; i++)
			free(cgroup_queue[i].dir);
		cgroup_nqueue = 0;
		return;
	}
	if (cgroup_retry_ev == NULL)
		cgroup_retry_ev = evtimer_new(base, cgroup_retry_cb, NULL);
	if (cgroup_retry_ev != NULL && cgroup_nqueue > 0)
		evtimer_add(cgroup_retry_ev, &tv);
}
