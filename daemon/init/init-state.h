/* init-state.h: the file guard's shared state (init-state.c). */
#ifndef SBOX_INIT_STATE_H
#define SBOX_INIT_STATE_H

#include "daemon/init/init-types.h"

/* The spec the guard message fills (whatever the state). */
struct guard_spec *init_state_guard(void);
/* The guard's state: 0 no guard yet, 1 ready, -1 broken. */
int init_state_get(void);
/* Are the hidden areas stand-ins (daemon/container/standin.c), and say. */
int init_state_standins(void);
void init_state_set_standins(int on);
/* Set the guard's state (0, 1 or -1). */
void init_state_set(int st);
/* The guard spec, or NULL before the guard message. */
const struct guard_spec *init_state_spec(void);
/* Report a refusal to sboxd (rate-limited, repeats dropped); rule "" for
 * a refusal by the kernel (a read-only mount) that sboxd explains; reason
 * NULL for one by a hidden path (sent as hidden: sboxd explains it). */
void init_state_report(json_int_t id, pid_t pid, const char *op,
    const char *path, int err, const char *rule, const char *reason);
/* A notification's handling begins: the reports made until its end share
 * one ticket, which sboxd answers (a "told" per report). */
void init_state_call_begin(void);
/* It ends: its ticket (0: nothing reported), the reports that carry it and
 * the calling process. */
json_int_t init_state_call_end(int *reports, pid_t *tgid);

/* Keep why the guard cannot decide on path (NULL: the call's own) for the
 * report; returns SV_UNDECIDED. */
int init_state_undecided(const char *path, const char *why);
/* The last reason kept by init_state_undecided (and clear it). */
const char *init_state_undecided_why(char *path, size_t len);

#endif
