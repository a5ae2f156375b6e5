/* container-cgroup.c: process and memory limits in a cgroup, for sboxd
 * running as root.
 *
 * RLIMIT_NPROC counts per user namespace (Linux >= 5.14), so it caps a
 * sandbox's processes when sboxd runs as an ordinary user; but the kernel
 * never applies it to the real root user, so as root the pids limit needs a
 * cgroup: a child of sboxd's own cgroup in the pids hierarchy (v1) or in the
 * unified one (v2), with pids.max (and memory.max / memory.limit_in_bytes
 * when a memory limit is set). bwrap's child joins it before exec. */
#include "daemon/container-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Write a string to a file; -1 with errno. */
static int
container_cgroup_write(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	int fd, rc = 0, e;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -1;
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Our cgroup folder for a controller ("" = the v2 unified one), or -1. */
static int
container_cgroup_base(const char *ctrl, char *out, size_t size)
{
	char line[1024], *hier, *ctrls, *path, want[64];
	struct stat st;
	FILE *f;
	int found = -1;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return -1;
	snprintf(want, sizeof want, ",%s,", ctrl);
	while (found < 0 && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((hier = strchr(line, ':')) == NULL ||
		    (path = strchr(hier + 1, ':')) == NULL)
			continue;
		ctrls = hier + 1;
		*path++ = '\0';
		if (*ctrl != '\0') {
			char list[512];
			snprintf(list, sizeof list, ",%s,", ctrls);
			if (strstr(list, want) == NULL)
				continue;
			snprintf(out, size, "/sys/fs/cgroup/%s%s", ctrl,
			    strcmp(path, "/") == 0 ? "" : path);
		} else {
			if (*ctrls != '\0')
				continue;
			snprintf(out, size, "/sys/fs/cgroup%s",
			    strcmp(path, "/") == 0 ? "" : path);
		}
		if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
			found = 0;
	}
	fclose(f);
	return found;
}

/* Make one child cgroup below base with a limit; keeps its procs fd. */
static int
container_cgroup_make(struct container_cg *cg, const char *base,
    const char *file, const char *value)
{
	static unsigned counter;
	char dir[PATH_MAX], procs[PATH_MAX + 16];
	int fd, e;

	if (cg->n >= 2)
		return -1;
	for (e = 0; e < 16; e++) {
		snprintf(dir, sizeof dir, "%s/sbox-%ld-%u", base, (long)getpid(),
		    ++counter);
		if (mkdir(dir, 0755) == 0)
			break;
		/* Left by an earlier sboxd with our pid that was killed: an
		 * empty one goes; one still in use is skipped. */
		if (errno != EEXIST || (rmdir(dir) == 0 && mkdir(dir, 0755) == 0))
			break;
	}
	if (access(dir, F_OK) < 0 || e == 16)
		return -1;
	snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
	if (container_cgroup_write(dir, file, value) < 0 ||
	    (fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0) {
		e = errno;
		rmdir(dir);
		errno = e;
		return -1;
	}
	if ((cg->dirs[cg->n] = strdup(dir)) == NULL) {
		close(fd);
		rmdir(dir);
		errno = ENOMEM;
		return -1;
	}
	cg->procs_fd[cg->n++] = fd;
	return 0;
}

/* As root with a pids (or memory) limit: make the cgroups. */
int
container_cgroup_setup(const struct plan_limits *l, struct container_cg *cg,
    sbox_error *err)
{
	char base[PATH_MAX], v2[PATH_MAX], val[32], ctl[256] = "";
	int have_v2;

	memset(cg, 0, sizeof *cg);
	cg->procs_fd[0] = cg->procs_fd[1] = -1;
	if (geteuid() != 0 || (l->pids == 0 && l->memory_bytes == 0))
		return 0;
	have_v2 = container_cgroup_base("", v2, sizeof v2) == 0;
	if (have_v2) {
		FILE *f;
		char path[PATH_MAX + 32];

		snprintf(path, sizeof path, "%s/cgroup.controllers", v2);
		if ((f = fopen(path, "re")) != NULL) {
			if (fgets(ctl, sizeof ctl, f) == NULL)
				ctl[0] = '\0';
			fclose(f);
		}
	}
	if (l->pids) {
		snprintf(val, sizeof val, "%llu",
		    (unsigned long long)l->pids);
		if (container_cgroup_base("pids", base, sizeof base) == 0) {
			if (container_cgroup_make(cg, base, "pids.max", val) < 0)
				goto fail;
		} else if (have_v2 && strstr(ctl, "pids") != NULL) {
			if (container_cgroup_make(cg, v2, "pids.max", val) < 0)
				goto fail;
			if (l->memory_bytes) {
				snprintf(val, sizeof val, "%llu",
				    (unsigned long long)l->memory_bytes);
				container_cgroup_write(cg->dirs[0],
				    "memory.max", val);
			}
			return 0;
		} else {
			errno = ENOENT;
			goto fail;
		}
	}
	/* Memory on v1: best effort (RLIMIT_AS still applies per process). */
	if (l->memory_bytes &&
	    container_cgroup_base("memory", base, sizeof base) == 0) {
		snprintf(val, sizeof val, "%llu",
		    (unsigned long long)l->memory_bytes);
		container_cgroup_make(cg, base, "memory.limit_in_bytes", val);
	}
	return 0;
fail:
	error_set_errno(err, E_SANDBOX_UNAVAILABLE, errno, "sboxd runs as root "
	    "and the kernel does not apply RLIMIT_NPROC to root, so the "
	    "sandbox's process limit needs a writable pids cgroup (v1 pids "
	    "hierarchy or v2 with the pids controller), which is not "
	    "available here; run sboxd as an ordinary user, or set the "
	    "profile's pids limit to 0");
	container_cgroup_cleanup(cg);
	return -1;
}

/* In the forked child before exec: join the cgroups. */
void
container_cgroup_join(const struct container_cg *cg)
{
	ssize_t n __attribute__((unused));
	int i;

	for (i = 0; i < cg->n; i++)
		n = write(cg->procs_fd[i], "0\n", 2);
}

/* Close the fds; remove the cgroups (they are empty once bwrap is gone). */
void
container_cgroup_cleanup(struct container_cg *cg)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	int i, tries;

	for (i = 0; i < cg->n; i++) {
		if (cg->procs_fd[i] >= 0)
			close(cg->procs_fd[i]);
		cg->procs_fd[i] = -1;
		for (tries = 0; rmdir(cg->dirs[i]) < 0 && errno == EBUSY &&
		    tries < 50; tries++)
			nanosleep(&ts, NULL);
		free(cg->dirs[i]);
		cg->dirs[i] = NULL;
	}
	cg->n = 0;
}
