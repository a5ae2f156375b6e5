/* init-msg.c: the control channel's small helpers every sbox-init file
 * uses: sending to sboxd, reading members of its untrusted messages, the
 * clock, UTF-8 cleaning, and the exit that kills the sandbox. */
#include "protocol/ctl.h"
#include "daemon/init/init-msg.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int init_msg_ctl_fd = -1;

/* Print a fatal line to stderr (sboxd captures it) and exit. */
void
init_msg_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("sbox-init: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	init_msg_exit(1);
}

/* Kill every process of the sandbox and exit. */
void
init_msg_exit(int code)
{
	/* Only as pid 1 of its own pid namespace does -1 mean "the sandbox". */
	if (getpid() == 1)
		kill(-1, SIGKILL);
	_exit(code);
}

/* Milliseconds on the monotonic clock. */
long long
init_msg_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send a message to sboxd (steals msg). */
void
init_msg_send(json_t *msg, const int *fds, int nfds)
{
	sbox_error err = { 0 };

	if (msg == NULL)
		init_msg_fatal("out of memory");
	/* a full socket (sboxd busy with a burst of commands) is
	 * backpressure: wait until it takes the message (a SEQPACKET send is
	 * whole or nothing), never an end of the sandbox */
	for (;;) {
		struct pollfd pfd = { .fd = init_msg_ctl_fd,
		    .events = POLLOUT };

		if (ctl_send(init_msg_ctl_fd, msg, fds, nfds, &err) == 0)
			break;
		if (errno != EAGAIN)
			break;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;	/* err still says why */
		if (pfd.revents & (POLLERR | POLLHUP)) {
			errno = EPIPE;
			break;
		}
		error_clear(&err);
	}
	if (err.message[0] != '\0') {
		json_decref(msg);
		if (errno == EPIPE || errno == ECONNRESET)
			init_msg_exit(0);
		init_msg_fatal("%s", err.message);
	}
	json_decref(msg);
}

/* Send error {req, errno, message}. */
void
init_msg_send_error(json_t *req, int errnum, const char *fmt, ...)
{
	char buf[512], clean[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* a path in the message may hold any bytes; JSON needs UTF-8 */
	init_msg_utf8(clean, buf, sizeof clean);
	init_msg_send(ctl_msg("error", "{s:O?,s:i,s:s}", "req", req, "errno",
	    errnum, "message", clean), NULL, 0);
}

/* A string member without NUL bytes and at most max bytes, or NULL. */
const char *
init_msg_get_str(json_t *msg, const char *key, size_t max)
{
	json_t *v = json_object_get(msg, key);
	const char *s;

	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v) || strlen(s) > max)
		return NULL;
	return s;
}

/* An absolute path member (<= CTL_PATH_MAX), or NULL. */
const char *
init_msg_get_path(json_t *msg, const char *key)
{
	const char *s = init_msg_get_str(msg, key, CTL_PATH_MAX);

	return s != NULL && s[0] == '/' ? s : NULL;
}

/* Copy src into dst (size n) as valid UTF-8: a byte that does not start a
 * well-formed sequence becomes '?' (paths are bytes; JSON is UTF-8). */
void
init_msg_utf8(char *dst, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, k, len;

	while (*s != '\0' && i + 5 < n) {
		len = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 && *s >= 0xc2 ? 2 :
		    (*s & 0xf0) == 0xe0 ? 3 : (*s & 0xf8) == 0xf0 && *s <= 0xf4 ?
		    4 : 0;
		for (k = 1; k < len; k++)
			if ((s[k] & 0xc0) != 0x80)
				len = 0;
		if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) ||
		    (s[0] == 0xed && s[1] >= 0xa0)))
			len = 0; /* overlong or a surrogate */
		if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) ||
		    (s[0] == 0xf4 && s[1] >= 0x90)))
			len = 0;
		if (len == 0) {
			dst[i++] = '?';
			s++;
			continue;
		}
		memcpy(dst + i, s, len);
		i += len;
		s += len;
	}
	dst[i] = '\0';
}
