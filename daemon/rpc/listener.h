/* listener.h: the daemon's Unix socket (own or socket-activated). */
#ifndef SBOX_LISTENER_H
#define SBOX_LISTENER_H

#include "protocol/error.h"

/* Listen on path (or take systemd's socket); -1 with err if impossible. */
int listener_open(const char *path, sbox_error *err);
/* Stop accepting; remove the socket file if sboxd created it. */
void listener_close(void);
/* Check that a folder is a directory owned by us with mode 0700, creating it
 * (and its missing parents, 0700) when absent. */
int listener_private_dir(const char *dir, sbox_error *err);

#endif
