/* gitwatch.h: files git would read its config and hooks from that a
 * sandbox cannot be kept from creating with a mount: a new `commondir` in
 * the project's git folder (git dies on an empty placeholder, so none can
 * be bound there). sboxd watches the git folders from the host side and
 * removes such a file the moment it appears, before anything runs it. */
#ifndef SBOX_GITWATCH_H
#define SBOX_GITWATCH_H

struct session;
struct gitwatch;

/* Watch the git folders of a session's project (NULL when there are none
 * or the project is not reachable from the sandbox). */
struct gitwatch *gitwatch_start(struct session *s);
/* Handle what is pending, then stop watching. */
void gitwatch_stop(struct gitwatch *w);

#endif
