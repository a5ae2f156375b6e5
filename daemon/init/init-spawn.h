/* init-spawn.h: commands (init-spawn.c). */
#ifndef SBOX_INIT_SPAWN_H
#define SBOX_INIT_SPAWN_H

#include <jansson.h>
#include <poll.h>
#include <sys/types.h>

/* init-spawn.c: commands. */
/* Handle spawn (text: the message as it came, passed on to a spare as it
 * is; NULL: encoded again). */
void init_spawn(json_t *msg, const char *text, size_t len, int *fds,
    int nfds);
void init_spawn_kill(json_t *msg);
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

/* Is (dev, ino) the stderr command id was started with? */
int init_spawn_is_stderr(json_int_t id, dev_t dev, ino_t ino);
/* The command (its id) process tid belongs to, 0 when none. */
json_int_t init_spawn_owner(pid_t tid);

#endif
