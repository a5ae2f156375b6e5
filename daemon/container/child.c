/* child.c: one evsignal SIGCHLD handler that reaps the registered pids.
 * Only registered pids are waited for (waitpid(pid, WNOHANG)), so a library
 * that reaps its own children is not disturbed. */
#include "daemon/container/child.h"

#include <errno.h>
#include <event2/event.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct child_watch {
	pid_t               pid;
	child_cb            cb;
	void               *arg;
	struct child_watch *next;
};

static struct event       *child_ev;
static struct child_watch *child_list;

/* SIGCHLD (or a manual kick): reap every registered pid that has exited.
 * Each is unlinked before its callback runs, so callbacks may watch and
 * unwatch; the walk then starts over. */
static void
child_on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct child_watch **pp, *w;
	pid_t r;
	int st;

	(void)sig;
	(void)what;
	(void)arg;
again:
	for (pp = &child_list; (w = *pp) != NULL; pp = &w->next) {
		st = 0;
		do
			r = waitpid(w->pid, &st, WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			continue;
		if (r < 0)
			st = 0; /* ECHILD: reaped elsewhere, report a plain exit */
		*pp = w->next;
		w->cb(w->pid, st, w->arg);
		free(w);
		goto again;
	}
}

/* Install the SIGCHLD handler on base (idempotent; one base only). */
int
child_init(struct event_base *base, sbox_error *err)
{
	if (child_ev != NULL)
		return 0;
	child_ev = evsignal_new(base, SIGCHLD, child_on_signal, NULL);
	if (child_ev == NULL || evsignal_add(child_ev, NULL) < 0) {
		if (child_ev)
			event_free(child_ev);
		child_ev = NULL;
		return error_set(err, E_INTERNAL,
		    "cannot install the SIGCHLD handler");
	}
	return 0;
}

/* Watch pid: cb(pid, status, arg) runs once it has exited. */
int
child_watch(pid_t pid, child_cb cb, void *arg, sbox_error *err)
{
	struct child_watch *w;

	if (child_ev == NULL)
		return error_set(err, E_INTERNAL, "child_init was not called");
	if ((w = calloc(1, sizeof *w)) == NULL)
		return error_nomem(err);
	w->pid = pid;
	w->cb = cb;
	w->arg = arg;
	w->next = child_list;
	child_list = w;
	/* In case its SIGCHLD was already handled: look once more soon. */
	event_active(child_ev, EV_SIGNAL, 1);
	return 0;
}

/* Stop watching pid. */
void
child_unwatch(pid_t pid)
{
	struct child_watch **pp, *w;

	for (pp = &child_list; (w = *pp) != NULL; pp = &w->next)
		if (w->pid == pid) {
			*pp = w->next;
			free(w);
			return;
		}
}

/* Reap pid synchronously, waiting at most timeout_ms, then SIGKILL it. */
int
child_reap_now(pid_t pid, int timeout_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int st = 0, waited = 0;
	pid_t r;

	child_unwatch(pid);
	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return st;
		if (r == 0 && waited >= timeout_ms)
			break;
		nanosleep(&ts, NULL);
		waited += 10;
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Remove the handler and forget every watch. */
void
child_shutdown(void)
{
	struct child_watch *w;

	while ((w = child_list) != NULL) {
		child_list = w->next;
		free(w);
	}
	if (child_ev != NULL) {
		event_free(child_ev);
		child_ev = NULL;
	}
}
