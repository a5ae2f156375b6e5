/* container.c: what the container*.c files share about one container:
 * the clock, the decision that it must end, the control channel out to
 * sbox-init (queued behind a full socket), its teardown and free, closing
 * it, and what callers may read of it. Starting it and following it until
 * bwrap ends is container-start.c; commands and file requests,
 * container-req.c; the file guard, container-guard.c. See container.h for
 * the life cycle and the callbacks' contract. */
#include "daemon/container/container.h"
#include "daemon/container/container-internal.h"
#include "daemon/container/container-standin.h"
#include "daemon/container/child.h"
#include "protocol/ctl.h"

#include <errno.h>
#include <event2/event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Milliseconds on the monotonic clock. */
long long
container_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Decide the container must end: remember why (first reason wins), kill. */
void
container_abort(struct container *c, const char *name, const char *msg)
{
	if (!c->have_why) {
		error_set(&c->why, name, "%s", msg);
		c->have_why = 1;
	}
	if (c->pid > 0 && !c->reaped)
		kill(c->pid, SIGKILL);
}

/* Read what bwrap wrote to stderr (keeps the first CONTAINER_ERR_MAX). */
void
container_read_err(struct container *c)
{
	char tmp[1024];
	ssize_t n;
	size_t k;

	while (c->errfd >= 0) {
		n = read(c->errfd, tmp, sizeof tmp);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				if (c->ev_err)
					event_free(c->ev_err);
				c->ev_err = NULL;
				close(c->errfd);
				c->errfd = -1;
			}
			return;
		}
		k = CONTAINER_ERR_MAX - c->errlen;
		if ((size_t)n < k)
			k = (size_t)n;
		memcpy(c->errbuf + c->errlen, tmp, k);
		c->errlen += k;
		c->errbuf[c->errlen] = '\0';
	}
}

/* Control socket writable again: send what waits. */
void
container_on_ctl_out(evutil_socket_t fd, short what, void *arg)
{
	struct container *c = arg;
	sbox_error err = { 0 };
	int rc;

	(void)fd;
	(void)what;
	if (c->ctl < 0 || c->ctlq == NULL)
		return;
	rc = ctl_queue_flush(c->ctlq, c->ctl, &err);
	if (rc == 1)
		event_add(c->ev_ctl_out, NULL);
	else if (rc < 0 && c->state != CS_DEAD)
		container_abort(c, E_SANDBOX_SETUP, err.message);
}

/* Send a message to sbox-init, behind what waits for a full socket. */
int
container_ctl_send(struct container *c, json_t *msg, const int *fds,
    int nfds, sbox_error *err)
{
	int rc;

	if (c->ctl < 0 || c->ctlq == NULL || c->ev_ctl_out == NULL)
		return error_set(err, E_SANDBOX_SETUP, "the sandbox's control "
		    "channel is closed");
	rc = ctl_queue_send(c->ctlq, c->ctl, msg, fds, nfds, err);
	if (rc == 1)
		event_add(c->ev_ctl_out, NULL);
	return rc < 0 ? -1 : 0;
}

/* Free the container (from the event loop, after callbacks unwound). */
void
container_free(evutil_socket_t fd, short what, void *arg)
{
	struct container *c = arg;

	(void)fd;
	(void)what;
	if (c->ev_timer)
		event_free(c->ev_timer);
	json_decref(c->guard);
	free(c->cwd);
	free(c);
}

/* Release everything but the struct (idempotent). */
void
container_teardown(struct container *c)
{
	int i;

	container_standin_free(c);
	if (c->ev_ctl) {
		event_free(c->ev_ctl);
		c->ev_ctl = NULL;
	}
	if (c->ev_ctl_out) {
		event_free(c->ev_ctl_out);
		c->ev_ctl_out = NULL;
	}
	ctl_queue_free(c->ctlq);
	c->ctlq = NULL;
	if (c->ctl >= 0) {
		close(c->ctl);
		c->ctl = -1;
	}
	if (c->ev_err) {
		event_free(c->ev_err);
		c->ev_err = NULL;
	}
	if (c->errfd >= 0) {
		close(c->errfd);
		c->errfd = -1;
	}
	if (c->ev_timer)
		event_del(c->ev_timer);
	for (i = 0; i < c->n_proxy; i++)
		if (c->proxy_fds[i] >= 0)
			close(c->proxy_fds[i]);
	c->n_proxy = 0;
	if (c->reaped)
		container_cgroup_cleanup(&c->cg);
}

/* Closing a container that had already ended: the callback, then free. */
static void
container_closed_later(evutil_socket_t fd, short what, void *arg)
{
	struct container *c = arg;

	if (c->on_closed)
		c->on_closed(c, c->closed_arg);
	container_free(fd, what, c);
}

/* Close: shutdown, SIGKILL after ~1 s, reap, clean up, then cb and free. */
void
container_close(struct container *c, container_closed_cb cb, void *arg)
{
	json_t *m;

	if (c == NULL)
		return;
	c->on_ready = NULL;
	c->on_dead = NULL;
	c->on_closed = cb;
	c->closed_arg = arg;
	if (c->state == CS_CLOSING)
		return;
	if (c->state == CS_DEAD) {
		c->state = CS_CLOSING;
		event_base_once(c->base, -1, EV_TIMEOUT, container_closed_later,
		    c, &(struct timeval){ 0, 0 });
		return;
	}
	c->state = CS_CLOSING;
	if (c->ctl >= 0 && (m = ctl_msg("shutdown", NULL)) != NULL) {
		container_ctl_send(c, m, NULL, 0, NULL);
		json_decref(m);
	}
	if (c->ev_timer) {
		event_del(c->ev_timer);
		event_add(c->ev_timer, &(struct timeval){ 1, 0 });
	}
}

/* Close at once and synchronously; no callback runs. */
void
container_destroy(struct container *c)
{
	struct container_req *r;

	if (c == NULL)
		return;
	if (c->pid > 0 && !c->reaped) {
		kill(c->pid, SIGKILL);
		child_reap_now(c->pid, 1000);
		c->reaped = 1;
	}
	container_teardown(c);
	while ((r = c->reqs) != NULL) {
		c->reqs = r->next;
		free(r);
	}
	container_free(-1, 0, c);
}

/* True once ready and until it ends or is closed. */
int
container_is_ready(const struct container *c)
{
	return c->state == CS_READY;
}

/* The bwrap process (outside the sandbox). */
pid_t
container_pid(const struct container *c)
{
	return c->pid;
}

/* The proxy port inside. */
int
container_proxy_port(const struct container *c)
{
	return c->proxy_port;
}

/* The proxy's listening sockets from `ready` (still owned by c). */
int
container_proxy_fds(const struct container *c, int fds[2], const char *fam[2])
{
	int i;

	for (i = 0; i < c->n_proxy; i++) {
		fds[i] = c->proxy_fds[i];
		fam[i] = c->proxy_fam[i];
	}
	return c->n_proxy;
}

/* Hand the proxy's listening sockets over to the caller. */
int
container_take_proxy_fds(struct container *c, int fds[2], const char *fam[2])
{
	int n = container_proxy_fds(c, fds, fam);

	c->n_proxy = 0;
	c->proxy_fds[0] = c->proxy_fds[1] = -1;
	return n;
}

/* The start of bwrap's stderr. */
const char *
container_stderr(const struct container *c)
{
	return c->errbuf;
}
