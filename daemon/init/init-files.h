/* init-files.h: file operations and listeners (init-files.c). */
#ifndef SBOX_INIT_FILES_H
#define SBOX_INIT_FILES_H

#include <jansson.h>

/* init-files.c: file operations and listeners. */
void init_files_open(json_t *msg);
void init_files_mkdir(json_t *msg);
void init_files_stat(json_t *msg);
void init_files_listen(json_t *msg);
/* Make listening TCP sockets on 127.0.0.1:port and [::1]:port; fds[0..2)
 * and families filled; returns how many (0 with errno set on failure). */
int init_files_listeners(int port, int *fds, const char **families);

#endif
