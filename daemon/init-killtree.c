/* init-killtree.c: killing everything a command started. sbox-init is
 * pid 1 of the sandbox's pid namespace, so /proc lists exactly the
 * sandbox's processes: a command's tree is every process whose parent is
 * in the tree, or that shares the session or process group of one in it.
 * A grandchild that called setsid (its own session and group) is still
 * found through its parent; the walk is repeated until nothing of the tree
 * is left, so what forked during a walk goes too. */
#include "daemon/init.h"

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

/* One walk: signal every process of root's tree; how many were signaled. */
static int
init_kt_walk(pid_t root, int sig, struct init_kt_proc *ps)
{
	struct dirent *de;
	size_t n = 0, i;
	int changed, killed = 0;
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
	for (i = 0; i < n; i++)
		ps[i].in = ps[i].pid == root || ps[i].sid == root ||
		    ps[i].pgrp == root;
	do {	/* children of the tree, and their sessions and groups */
		changed = 0;
		for (i = 0; i < n; i++) {
			size_t j;
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
		if (ps[i].in && kill(ps[i].pid, sig) == 0)
			killed++;
	}
	return killed;
}

/* Signal root's whole tree (its group first), walking again until no
 * process of it is left to signal. */
void
init_killtree(pid_t root, int sig)
{
	struct init_kt_proc *ps;
	int r;

	if (kill(-root, sig) < 0)
		kill(root, sig);
	if ((ps = calloc(INIT_KT_MAX, sizeof *ps)) == NULL)
		return;
	for (r = 0; r < INIT_KT_ROUNDS; r++) {
		if (init_kt_walk(root, sig, ps) == 0)
			break;
	}
	free(ps);
}
