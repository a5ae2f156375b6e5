/* cgroup.h: where sboxd's cgroups live and how they go away.
 *
 * Paths: sboxd's own cgroup per v1 controller and in the v2 tree, read from
 * /proc/self/cgroup, under /sys/fs/cgroup. Both paths can be replaced
 * (cgroup_set_paths) so tests run against a fake tree in a temp folder.
 *
 * Delegation: an unprivileged sboxd whose own v2 cgroup is delegated to it
 * (cgroup.subtree_control and cgroup.procs writable, as with systemd's
 * Delegate=yes) moves itself into the leaf <own>/sboxd, enables the memory,
 * pids and cpu controllers for <own>'s children, and puts each container in
 * a child <own>/sbox-<pid>-<n>.
 *
 * Leftovers: container cgroups are named sbox-<pid>-<start time>-<n>
 * after the sboxd that made them (its pid and start time: the mkdir that
 * makes one marks it, so a kill -9 between the two steps leaves nothing
 * unmarked), and marked as its own (the xattr CGROUP_MARK_XATTR =
 * "<boot id> <pid> <start time>"). At start every such cgroup whose mark
 * names a process of this boot that is gone (or whose pid is another
 * process now: its start time differs) is emptied (cgroup.kill, or SIGKILL
 * to its cgroup.procs) and removed; one still busy is retried from a
 * timer. An unmarked one is judged by its name when the name holds the
 * start time (cgroups do not outlive a boot); an unmarked sbox-<pid>-<n>
 * (the older name, or a name someone else chose) is never touched: a pid
 * alone says nothing about who made it. */
#ifndef SBOX_CGROUP_H
#define SBOX_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

#include "protocol/error.h"

struct event_base;

/* Controllers of a delegated v2 cgroup sboxd enabled for its containers. */
enum { CGROUP_MEMORY = 1, CGROUP_PIDS = 2, CGROUP_CPU = 4 };

/* Use root instead of /sys/fs/cgroup and self instead of /proc/self/cgroup
 * (NULL: the default). */
void cgroup_set_paths(const char *root, const char *self);
/* Our cgroup folder for a v1 controller, or in the v2 tree for ctrl "";
 * 0, or -1 when there is none (or it is not a folder). */
int cgroup_own(const char *ctrl, char *out, size_t size);
/* Write text to dir/file; -1 with errno. */
int cgroup_write(const char *dir, const char *file, const char *text);
/* When our v2 cgroup is delegated: move this process into <own>/sboxd,
 * enable memory/pids/cpu for <own>'s children and put <own> in parent;
 * returns the CGROUP_* enabled (0 when none could be), or -1 with err
 * saying why there is no delegated cgroup. */
int cgroup_delegate(char *parent, size_t size, sbox_error *err);
#define CGROUP_MARK_XATTR "user.sbox.owner"
/* Is the sboxd pid that started at start (clock ticks since boot) gone
 * (dead, or the pid is another process now)? The current process counts
 * as gone (it made none before it started). */
int cgroup_owner_gone(pid_t pid, unsigned long long start);
/* Mark dir as made by this process (0, or -1 with errno when the cgroup
 * file system keeps no xattrs: a crash then leaves it behind). */
int cgroup_mark(const char *dir);
/* This process's next container cgroup below base: base/sbox-<pid>-<start
 * time>-<n> (the name marks it in the mkdir itself); -1 when too long. */
int cgroup_name(char *out, size_t size, const char *base, unsigned n);
/* Parse sbox-<pid>-<n> (*start 0) or sbox-<pid>-<start>-<n>; 0 or -1. */
int cgroup_name_parse(const char *name, long *pid, unsigned long long *start);
/* 1 when dir carries a mark of this boot whose process is gone; 0 when it
 * has none, another boot's, or its process lives. */
int cgroup_mark_gone(const char *dir);
/* Remove the sbox-<pid>-<n> cgroups marked by gone sboxd processes under
 * dir;
 * busy ones are queued for cgroup_remove's retries. Returns how many were
 * found. */
int cgroup_sweep(const char *dir);
/* Remove a cgroup folder now (killing what is left in it), or queue it to
 * be retried from the timer while it is busy. */
void cgroup_remove(const char *dir);
/* Cgroup folders still waiting to be removed. */
int cgroup_pending(void);
/* Start (base) or stop (NULL) the retry timer. */
void cgroup_timer(struct event_base *base);

#endif
