/* paths.h: where a client finds sboxd by default (the same rule on both
 * sides of the socket). */
#ifndef SBOX_PATHS_H
#define SBOX_PATHS_H

/* $XDG_RUNTIME_DIR/sbox/sboxd.sock, or /tmp/sbox-UID/sboxd.sock when that
 * variable is unset or not absolute. The caller frees; NULL on ENOMEM. */
char *paths_default_socket(void);

#endif
