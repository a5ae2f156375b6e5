/* session-sequencer.h: git's sequencer state a session left in its roots'
 * .git folders, checked on the host side (session-sequencer.c). */
#ifndef SBOX_SESSION_SEQUENCER_H
#define SBOX_SESSION_SEQUENCER_H

#include <stdint.h>

struct container;
struct session;
struct session_sequencer_close;

/* After a command of s (container id ct_id) ended: check each root's
 * .git/rebase-merge, rebase-apply and sequencer; a state host git would
 * run a program from is moved out of git's sight and refused on the
 * command (its blocked files), the log and the events. */
void session_sequencer_check(struct session *s, uint64_t ct_id);
/* At close: what the check needs, now or (late 1) once the container is
 * gone (the session is freed by then; the host's own git may be at work
 * on the state then); NULL when there is nothing to check. */
struct session_sequencer_close *session_sequencer_prepare(
    const struct session *s, int late);
/* Run the close check (every process of the sandbox has ended) and free
 * q; a container_closed_cb (c is unused). */
void session_sequencer_closed(struct container *c, void *q);

#endif
