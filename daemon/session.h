/* session.h: the daemon's live sessions (one container each). */
#ifndef SBOX_SESSION_H
#define SBOX_SESSION_H

#include "protocol/error.h"

/* Number of live sessions. */
int session_count(void);
/* Close every live session (daemon shutdown), recording why. */
void session_close_all(const char *reason);
/* At start: mark what a previous run left live as ended by a crash and
 * remove its leftovers. */
int session_recover(sbox_error *err);

#endif
