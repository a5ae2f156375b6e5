/* init-supervise.h: the file guard's listeners and loop (init-supervise.c). */
#ifndef SBOX_INIT_SUPERVISE_H
#define SBOX_INIT_SUPERVISE_H

#include <jansson.h>
#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

/* init-supervise.c: the file guard (seccomp user notification). */
/* Handle guard {roots, home, bulk, missing, supervise, filter...} with its
 * bytes (one memfd in fds); replies guarded. */
void init_supervise_guard(json_t *msg, const int *fds, int nfds);
/* Handle guard_protect {missing}: more protected paths (git's config
 * named them since); a bad message breaks the guard (commands refused). */
void init_supervise_protect(json_t *msg);
/* Why commands cannot run now (no guard yet, or it broke), or NULL. */
const char *init_supervise_unready(void);
/* In a forked child: install the notify filter, send its listener through
 * sock; 0 or an errno. */
int init_supervise_child(int sock);
/* After fork: take the child's listener for command id; -1 when none came
 * (the child is then killed or already failed). */
int init_supervise_adopt(int sock, pid_t pid, json_int_t id);
/* Answer notification id of listener lfd: with fd injected (err 0, fd >= 0;
 * closes it) or with err (0: success, value val). */
void init_supervise_send(int lfd, uint64_t id, int err, long long val, int fd,
    int cloexec);
/* Fill pfd[] with the listeners; returns how many (<= max). */
int init_supervise_pollfds(struct pollfd *pfd, int max);
/* Handle the listeners poll reported. */
void init_supervise_events(struct pollfd *pfd, int n);

#endif
