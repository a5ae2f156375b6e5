/* init-killtree.c: killing everything a command started. sbox-init is
 * pid 1 of the sandbox's pid namespace, so /proc lists exactly the
 * sandbox's processes: a command's tree is every process whose parent is
 * in the tree, or that shares the session or process group of one in it.
 * A grandchild that called setsid (its own session and group) is still
 * found through its parent: the tree is stopped (SIGSTOP) walk by walk
 * until a walk finds nothing new, so nothing forks or is orphaned while it
 * is walked, and only then killed. */
#include "daemon/init/init-killtree.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INIT_KT_MAX    4096   /* processes looked at in one walk */
#define INIT_KT_ROUNDS 8

struct init_kt_proc {
	pid_t pid, ppid, pgrp, sid;
	int   in;
};

/* Read pid, ppid, process group and session from /proc/PID/stat. */
static int
init_kt_stat(pid_t pid, struct init_kt_proc *p)
{
	char path[64], buf[512], *e;
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	ok = fgets(buf, sizeof buf, f) != NULL;
	fclose(f);
	/* the name may hold spaces and parentheses: parse after the last ')' */
	if (!ok || (e = strrchr(buf, ')')) == NULL ||
	    sscanf(e + 1, " %*c %d %d %d", &p->ppid, &p->pgrp, &p->sid) != 3)
		return -1;
	p->pid = pid;
	p->in = 0;
	return 0;
}

/* One walk: stop every process of root's tree not stopped yet (known:
 * the pids already stopped, *nknown of them); how many were added. */
static int
init_kt_walk(pid_t root, struct init_kt_proc *ps, pid_t *known,
    size_t *nknown)
{
	struct dirent *de;
	size_t n = 0, i, j;
	int changed, added = 0;
	DIR *d;
	long v;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < INIT_KT_MAX) {
		v = strtol(de->d_name, NULL, 10);
		if (v <= 1 || v == (long)getpid())
			continue;
		if (init_kt_stat((pid_t)v, &ps[n]) == 0)
			n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		ps[i].in = ps[i].pid == root || ps[i].sid == root ||
		    ps[i].pgrp == root;
		for (j = 0; j < *nknown && !ps[i].in; j++)
			ps[i].in = ps[i].pid == known[j];
	}
	do {	/* children of the tree, and their sessions and groups */
		changed = 0;
		for (i = 0; i < n; i++) {
			if (ps[i].in)
				continue;
			for (j = 0; j < n; j++) {
				if (!ps[j].in)
					continue;
				if (ps[i].ppid == ps[j].pid ||
				    (ps[i].sid == ps[j].sid && ps[j].sid > 1) ||
				    (ps[i].pgrp == ps[j].pgrp && ps[j].pgrp > 1)) {
					ps[i].in = 1;
					changed = 1;
					break;
				}
			}
		}
	} while (changed);
	for (i = 0; i < n; i++) {
		if (!ps[i].in)
			continue;
		for (j = 0; j < *nknown; j++)
			if (known[j] == ps[i].pid)
				break;
		if (j < *nknown || *nknown == INIT_KT_MAX)
			continue;
		/* stopped, it forks no more and its children stay its own */
		if (kill(ps[i].pid, SIGSTOP) == 0) {
			known[(*nknown)++] = ps[i].pid;
			added++;
		}
	}
	return added;
}

/* Signal root's whole tree: stop it walk by walk until a walk finds
 * nothing new (a process whose parent was killed first would be orphaned
 * to sbox-init and lost), then send sig to all and let them run it. */
void
init_killtree(pid_t root, int sig)
{
	struct init_kt_proc *ps;
	pid_t *known;
	size_t nknown = 0, i;
	int r;

	ps = calloc(INIT_KT_MAX, sizeof *ps);
	known = calloc(INIT_KT_MAX, sizeof *known);
	if (ps == NULL || known == NULL) {
		free(ps);
		free(known);
		if (kill(-root, sig) < 0)
			kill(root, sig);
		return;
	}
	for (r = 0; r < INIT_KT_ROUNDS; r++) {
		if (init_kt_walk(root, ps, known, &nknown) == 0)
			break;
	}
	if (kill(-root, sig) < 0)
		kill(root, sig);
	for (i = 0; i < nknown; i++) {
		kill(known[i], sig);
		kill(known[i], SIGCONT);
	}
	free(ps);
	free(known);
}
