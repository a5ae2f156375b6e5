/* session-keep.h: a provider's kept home files (session-keep.c). */
#ifndef SBOX_SESSION_KEEP_H
#define SBOX_SESSION_KEEP_H

struct session;

/* Write the kept part of each of s's kept files into its sandbox's home;
 * done(s) runs once they are written (at once when there is none). */
void session_keep_seed(struct session *s, void (*done)(struct session *));
/* Copy the kept part of each kept file back from the sandbox's home into
 * the host's file (after a command). */
void session_keep_sync(struct session *s);

#endif
