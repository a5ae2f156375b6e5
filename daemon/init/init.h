/* init.h: what the sbox-init files (init-*.c) share. sbox-init is pid 1 of
 * a session's container; see ctl.h for the messages it serves. */
#ifndef SBOX_INIT_H
#define SBOX_INIT_H

#include <jansson.h>
#include <poll.h>
#include <sys/types.h>

#include "daemon/init/init-msg.h"

/* init-spawn.c: commands. */
void init_spawn(json_t *msg, int *fds, int nfds);
void init_spawn_kill(json_t *msg);
/* Signal every process a command started: its group, its descendants and
 * their sessions and groups (init-killtree.c). */
void init_killtree(pid_t root, int sig);
/* Reap every exited child, report commands' exits. */
void init_spawn_reap(void);
/* Fork a spare child, its file guard in place, for the next command
 * (when there is none, the guard is ready and no command runs). */
void init_spawn_spare(void);
/* Fill pfd[] with exec-status pipes to watch; returns how many (<= max). */
int init_spawn_pollfds(struct pollfd *pfd, int max);
/* Handle the exec-status pipes that poll reported. */
void init_spawn_pipes(struct pollfd *pfd, int n);
/* Milliseconds until the next command timeout (-1 = none); kills those due. */
int init_spawn_timeouts(void);

/* init-tty.c: a command's terminal, in the container's own devpts. */
/* A new pty pair sized rows x cols (close-on-exec, O_NOCTTY); 0 or errno. */
int init_tty_open(unsigned short rows, unsigned short cols, int *master,
    int *slave);
/* In a forked child after setsid(): slave becomes the controlling terminal
 * and fds 0, 1, 2; 0 or an errno. */
int init_tty_child(int slave);
/* For the file guard: what /dev/tty means for process tgid (its own
 * controlling terminal) opened with flags; the fd or -errno. */
int init_tty_open_ctty(pid_t tgid, int flags);

/* init-files.c: file operations and listeners. */
void init_files_open(json_t *msg);
void init_files_mkdir(json_t *msg);
void init_files_stat(json_t *msg);
void init_files_listen(json_t *msg);
/* Make listening TCP sockets on 127.0.0.1:port and [::1]:port; fds[0..2)
 * and families filled; returns how many (0 with errno set on failure). */
int init_files_listeners(int port, int *fds, const char **families);

/* init-supervise.c: the file guard (seccomp user notification). */
/* Handle guard {roots, home, protected, missing, rules, supervise};
 * replies guarded. */
void init_supervise_guard(json_t *msg);
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
/* Fill pfd[] with the listeners; returns how many (<= max). */
int init_supervise_pollfds(struct pollfd *pfd, int max);
/* Handle the listeners poll reported. */
void init_supervise_events(struct pollfd *pfd, int n);
/* init-exclude.c: programs matching `exclude`, sent outside. */
/* Fill pfd[] with the shims' sockets; returns how many (<= max). */
int init_exclude_pollfds(struct pollfd *pfd, int max);
/* Handle what poll reported on them. */
void init_exclude_events(struct pollfd *pfd, int n);
/* exclude_done {xid, code, message} from sboxd. */
void init_exclude_done(json_t *msg);
/* sbox-init started as the shim (not pid 1): its exit status. */
int init_exclude_shim(const char *self);
/* init-ops.c: sbox-init's own writes, decided like a command's: an fd
 * (open) or 0 (mkdir), or -errno; why gets the guard's reason when it
 * refused. */
int init_ops_file_open(const char *path, int flags, mode_t mode,
    char *why, size_t whylen);
int init_ops_file_mkdir(const char *path, mode_t mode, char *why,
    size_t whylen);

#endif
