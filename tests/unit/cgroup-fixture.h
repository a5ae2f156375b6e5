/* cgroup-fixture.h: a fake cgroup tree in a temp folder (cgroup_set_paths)
 * for the cgroup and spare-launcher suites: files and folders below its
 * root, marks, a delegated cgroup v2 tree. Static inline: each suite uses
 * its own part. */
#ifndef SBOX_TEST_CGROUP_FIXTURE_H
#define SBOX_TEST_CGROUP_FIXTURE_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/container/cgroup.h"
#include "daemon/container/child.h"
#include "daemon/container/container-internal.h"

static char root[PATH_MAX];
static char self[PATH_MAX + 16];

/* Write a file below the fake root. */
static inline void
put(const char *rel, const char *text)
{
	char path[PATH_MAX * 3];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* Make a folder (and its parents) below the fake root. */
static inline void
dir(const char *rel)
{
	char path[PATH_MAX * 3], *p;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
}

/* Does a path below the fake root exist? */
static inline int
exists(const char *rel)
{
	char path[PATH_MAX * 3];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

/* A fresh fake tree; /proc/self/cgroup is the file "self". */
static inline void
setup(void)
{
	snprintf(root, sizeof root, "/tmp/sbox-test-cgroup-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(self, sizeof self, "%s/self", root);
	cgroup_set_paths(root, self);
}

/* Remove the fake tree. */
static inline void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	cgroup_set_paths(NULL, NULL);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* A pid that is certainly gone. */
static inline pid_t
dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* Mark a folder below the fake root as made by pid (started at start) in
 * the boot boot (NULL: this one). */
static inline void
mark(const char *rel, pid_t pid, unsigned long long start, const char *boot)
{
	char path[PATH_MAX * 3], val[160], id[64] = "";
	FILE *f;

	if (boot == NULL) {
		ck_assert_ptr_nonnull(f = fopen("/proc/sys/kernel/random/boot_id",
		    "r"));
		ck_assert_ptr_nonnull(fgets(id, sizeof id, f));
		fclose(f);
		id[strcspn(id, "\n")] = '\0';
		boot = id;
	}
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(val, sizeof val, "%s %d %llu", boot, (int)pid, start);
	ck_assert_int_eq(setxattr(path, CGROUP_MARK_XATTR, val, strlen(val), 0),
	    0);
}

/* Read the first line of a file below the fake root. */
static inline void
get(const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX * 3];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	ck_assert_msg((f = fopen(path, "r")) != NULL, "%s", path);
	if (fgets(buf, (int)size, f) == NULL)
		buf[0] = '\0';
	fclose(f);
}

/* A delegated cgroup v2 fake tree (user.slice/u.service, with cpu, memory
 * and pids), its mode taken on base. */
static inline void
delegated_tree(struct event_base *base)
{
	put("self", "0::/user.slice/u.service\n");
	dir("user.slice/u.service");
	put("user.slice/u.service/cgroup.subtree_control", "");
	put("user.slice/u.service/cgroup.procs", "");
	put("user.slice/u.service/cgroup.controllers", "cpu memory pids\n");
	container_cgroup_init(base, 0);
}

/* Take the files out of a fake cgroup folder (cgroupfs removes an empty
 * cgroup with its files; a fake one needs them gone for rmdir). */
static inline void
empty(const char *d)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof cmd, "rm -f '%s'/*", d);
	ck_assert_int_eq(system(cmd), 0);
}

/* Is pid gone (reaped: no such process)? */
static inline int
gone(pid_t pid)
{
	return kill(pid, 0) == -1 && errno == ESRCH;
}

#endif
