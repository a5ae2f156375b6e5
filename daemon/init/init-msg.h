/* init-msg.h: the control channel's helpers (init-msg.c), below every
 * other sbox-init file. */
#ifndef SBOX_INIT_MSG_H
#define SBOX_INIT_MSG_H

#include <jansson.h>
#include <stddef.h>

/* The control socket to sboxd. */
extern int init_msg_ctl_fd;

/* Print a fatal line to stderr (sboxd captures it) and exit. */
void init_msg_fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
/* Kill every process of the sandbox and exit. */
void init_msg_exit(int code) __attribute__((noreturn));
/* Milliseconds on the monotonic clock. */
long long init_msg_now_ms(void);
/* Send a message to sboxd (steals msg, closes nothing); on failure sbox-init
 * has lost its daemon and exits after killing everything. */
void init_msg_send(json_t *msg, const int *fds, int nfds);
/* Send error {req, errno, message} (req may be NULL = json null). */
void init_msg_send_error(json_t *req, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Validation helpers for untrusted messages. */
/* A string member without NUL bytes and at most max bytes, or NULL. */
const char *init_msg_get_str(json_t *msg, const char *key, size_t max);
/* An absolute path member (<= CTL_PATH_MAX), or NULL. */
const char *init_msg_get_path(json_t *msg, const char *key);
/* Copy src into dst (size n) as valid UTF-8 ('?' for bad bytes). */
void init_msg_utf8(char *dst, const char *src, size_t n);

#endif
