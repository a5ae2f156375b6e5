/* container-cgroup.c: a cgroup per container, where one can be had.
 *
 * - sboxd unprivileged with a delegated cgroup v2 (systemd Delegate=yes):
 *   each container gets <own>/sbox-<pid>-<n> with memory.max, pids.max and
 *   cpu.weight (see cgroup.h); the memory limit then holds for the whole
 *   sandbox, not per process.
 * - sboxd as root: RLIMIT_NPROC counts per user namespace (Linux >= 5.14),
 *   but the kernel never applies it to the real root user, so the pids
 *   limit needs a child of sboxd's own cgroup in the pids hierarchy (v1) or
 *   in the unified one (v2), with pids.max (and memory.max /
 *   memory.limit_in_bytes when a memory limit is set).
 * - otherwise no cgroup: pids is RLIMIT_NPROC, memory RLIMIT_AS per
 *   process; container_cgroup_mode() says so (sandbox check, session.info).
 * bwrap's child joins the cgroups before exec (the process that becomes
 * bwrap: a fork at create, or the spare made ahead, container-spare.c),
 * and does not exec when it cannot. */
#include "daemon/container/container-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/container/cgroup.h"
#include "daemon/log.h"

#define CONTAINER_CGROUP_NONE "none: memory is limited per process " \
	"(RLIMIT_AS), processes per sandbox (RLIMIT_NPROC)"

static int container_cgroup_root = -1;         /* sboxd runs as root (-1: ask) */
static char container_cgroup_deleg[PATH_MAX];  /* delegated parent, or "" */
static int container_cgroup_ctrls;              /* CGROUP_* enabled there */
static int container_cgroup_on;                 /* started, not stopped */
static char container_cgroup_why[PATH_MAX + 1200] = CONTAINER_CGROUP_NONE;

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
		if (cgroup_name(dir, sizeof dir, base, ++counter) < 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (mkdir(dir, 0755) == 0)
			break;
		/* Left by an earlier sboxd with our pid that was killed: an
		 * empty one goes; one still in use is skipped. */
		if (errno != EEXIST || (rmdir(dir) == 0 && mkdir(dir, 0755) == 0))
			break;
	}
	if (access(dir, F_OK) < 0 || e == 16)
		return -1;
	if (cgroup_mark(dir) < 0) {
		static int warned;

		if (!warned++)
			log_warn("cannot mark cgroup %s as sboxd's own (%s): "
			    "its name alone names sboxd after a crash", dir,
			    strerror(errno));
	}
	snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
	if ((file != NULL && cgroup_write(dir, file, value) < 0) ||
	    (fd = open(procs, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0) {
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

/* At start: sweep what dead sboxd processes left and, unprivileged, take
 * a delegated cgroup v2 if there is one. */
void
container_cgroup_start(struct event_base *base)
{
	container_cgroup_init(base, geteuid() == 0);
}

/* container_cgroup_start, with root given (tests use a fake tree). */
void
container_cgroup_init(struct event_base *base, int root)
{
	static const char *v1[] = { "pids", "memory" };
	char dir[PATH_MAX];
	sbox_error err;
	size_t i;
	int n = 0, got;

	cgroup_timer(base);
	container_cgroup_on = 1;
	/* first, while we are still where we started (a delegated sboxd
	 * moves itself into a leaf below) */
	for (i = 0; i < sizeof v1 / sizeof v1[0]; i++)
		if (cgroup_own(v1[i], dir, sizeof dir) == 0)
			n += cgroup_sweep(dir);
	if (cgroup_own("", dir, sizeof dir) == 0)
		n += cgroup_sweep(dir);
	if (n > 0)
		log_info("removing %d cgroup(s) of earlier sboxd processes", n);
	error_clear(&err);
	container_cgroup_deleg[0] = '\0';
	container_cgroup_ctrls = 0;
	container_cgroup_root = root;
	if (!root) {
		got = cgroup_delegate(dir, sizeof dir, &err);
		if (got > 0) {
			snprintf(container_cgroup_deleg, sizeof container_cgroup_deleg,
			    "%s", dir);
			container_cgroup_ctrls = got;
			snprintf(container_cgroup_why, sizeof container_cgroup_why,
			    "v2 (delegated): %s/sbox-*:%s%s%s", dir,
			    got & CGROUP_MEMORY ? " memory.max" : "",
			    got & CGROUP_PIDS ? " pids.max" : "",
			    got & CGROUP_CPU ? " cpu.weight" : "");
		} else {
			snprintf(container_cgroup_why, sizeof container_cgroup_why,
			    "%s (%s)", CONTAINER_CGROUP_NONE, got == 0 ?
			    "the delegated cgroup has no memory, pids or cpu "
			    "controller" : err.message);
		}
	} else {
		snprintf(container_cgroup_why, sizeof container_cgroup_why,
		    "root: pids.max (v1 pids or v2), memory best effort; "
		    "RLIMIT_AS per process");
	}
}

/* Stop retrying removals and making spares' cgroups (shutdown). */
void
container_cgroup_stop(void)
{
	container_cgroup_on = 0;
	cgroup_timer(NULL);
}

/* Between container_cgroup_init and container_cgroup_stop? */
int
container_cgroup_started(void)
{
	return container_cgroup_on;
}

/* How the sandboxes' memory and processes are bounded here, in a line. */
const char *
container_cgroup_mode(void)
{
	return container_cgroup_why;
}

/* Unprivileged with a delegated cgroup: one child with every limit. */
static int
container_cgroup_setup_delegated(const struct plan_limits *l,
    struct container_cg *cg)
{
	char val[32];

	if (container_cgroup_make(cg, container_cgroup_deleg, NULL, NULL) < 0)
		return -1;
	if (l->memory_bytes && (container_cgroup_ctrls & CGROUP_MEMORY)) {
		snprintf(val, sizeof val, "%llu\n",
		    (unsigned long long)l->memory_bytes);
		if (cgroup_write(cg->dirs[0], "memory.max", val) < 0 ||
		    cgroup_write(cg->dirs[0], "memory.swap.max", "0\n") < 0)
			log_debug("cgroup %s: memory: %s", cg->dirs[0],
			    strerror(errno));
	}
	if (l->pids && (container_cgroup_ctrls & CGROUP_PIDS)) {
		snprintf(val, sizeof val, "%llu\n", (unsigned long long)l->pids);
		if (cgroup_write(cg->dirs[0], "pids.max", val) < 0)
			return -1;
	}
	if (container_cgroup_ctrls & CGROUP_CPU)
		cgroup_write(cg->dirs[0], "cpu.weight", "100\n");
	return 0;
}

/* Make the container's cgroups (delegated, or as root). */
int
container_cgroup_setup(const struct plan_limits *l, struct container_cg *cg,
    sbox_error *err)
{
	char base[PATH_MAX], v2[PATH_MAX], val[32], ctl[256] = "";
	int have_v2;

	memset(cg, 0, sizeof *cg);
	cg->procs_fd[0] = cg->procs_fd[1] = -1;
	if (container_cgroup_root < 0)
		container_cgroup_root = geteuid() == 0;
	if (!container_cgroup_root && container_cgroup_deleg[0] != '\0') {
		if (container_cgroup_setup_delegated(l, cg) == 0)
			return 0;
		error_set_errno(err, E_SANDBOX_SETUP, errno, "cannot make the "
		    "sandbox's cgroup under %s", container_cgroup_deleg);
		container_cgroup_cleanup(cg);
		return -1;
	}
	if (!container_cgroup_root || (l->pids == 0 && l->memory_bytes == 0))
		return 0;
	have_v2 = cgroup_own("", v2, sizeof v2) == 0;
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
		if (cgroup_own("pids", base, sizeof base) == 0) {
			if (container_cgroup_make(cg, base, "pids.max", val) < 0)
				goto fail;
		} else if (have_v2 && strstr(ctl, "pids") != NULL) {
			if (container_cgroup_make(cg, v2, "pids.max", val) < 0)
				goto fail;
			if (l->memory_bytes) {
				snprintf(val, sizeof val, "%llu",
				    (unsigned long long)l->memory_bytes);
				cgroup_write(cg->dirs[0], "memory.max", val);
			}
			return 0;
		} else {
			errno = ENOENT;
			goto fail;
		}
	}
	/* Memory on v1: best effort (RLIMIT_AS still applies per process). */
	if (l->memory_bytes && cgroup_own("memory", base, sizeof base) == 0) {
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

/* In the forked child before exec: join the cgroups; 0, or -1 with errno
 * and *which the cgroup that could not be joined. */
int
container_cgroup_join(const struct container_cg *cg, const char **which)
{
	int i;

	for (i = 0; i < cg->n; i++) {
		errno = 0;
		if (write(cg->procs_fd[i], "0\n", 2) != 2) {
			if (errno == 0)
				errno = EIO;
			if (which != NULL)
				*which = cg->dirs[i];
			return -1;
		}
	}
	return 0;
}

/* The container's limits as JSON: {"cgroup": where, or why none}. */
json_t *
container_cgroup_describe(const struct container_cg *cg)
{
	char buf[PATH_MAX * 2 + 8] = "";
	int i;

	if (cg == NULL || cg->n == 0)
		return json_pack("{s:s}", "cgroup", container_cgroup_why);
	for (i = 0; i < cg->n; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
		    i ? " " : "", cg->dirs[i]);
	return json_pack("{s:s, s:s}", "cgroup", buf, "mode",
	    container_cgroup_why);
}

/* A container's limits: {"cgroup": its cgroup folders, or why none}. */
json_t *
container_limits(const struct container *c)
{
	return container_cgroup_describe(c != NULL ? &c->cg : NULL);
}

/* Close the fds; remove the cgroups (empty once bwrap is gone; a busy one
 * is retried from the loop). */
void
container_cgroup_cleanup(struct container_cg *cg)
{
	int i;

	for (i = 0; i < cg->n; i++) {
		if (cg->procs_fd[i] >= 0)
			close(cg->procs_fd[i]);
		cg->procs_fd[i] = -1;
		cgroup_remove(cg->dirs[i]);
		free(cg->dirs[i]);
		cg->dirs[i] = NULL;
	}
	cg->n = 0;
}
