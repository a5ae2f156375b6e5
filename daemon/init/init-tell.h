/* init-tell.h: a refusal told to the process it refused (init-tell.c). */
#ifndef SBOX_INIT_TELL_H
#define SBOX_INIT_TELL_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

/* Hold a refused call's answer until sboxd has said, for each of its
 * reports (of command cmd), what to tell the caller (or until a short deadline); takes fd.
 * 0 held, -1 not held (answer it now). */
int init_tell_defer(int lfd, uint64_t notif_id, int err, long long val,
    int fd, int cloexec, json_int_t cmd, json_int_t ticket, int reports,
    pid_t tgid);
/* The same for a stand-in's open that sboxd holds (fs_done {token} once
 * told). 0 held, -1 not. */
int init_tell_defer_fs(json_int_t token, json_int_t cmd, json_int_t ticket,
    int reports, pid_t tgid);
/* Handle fs_read {pid, path, errno, token} from sboxd. */
void init_tell_fs_read(json_t *msg);
/* Handle told {ticket, text?} from sboxd. */
void init_tell_told(json_t *msg);
/* Milliseconds until the next held answer's deadline (-1: none held). */
int init_tell_timeout(void);
/* Answer the held calls whose deadline has passed. */
void init_tell_expire(void);

#endif
