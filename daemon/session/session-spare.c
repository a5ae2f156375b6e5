/* session-spare.c: a spare session for one-shot commands (`sbox run`).
 *
 * A cold `sbox run` made a session, ran one command in it and closed it:
 * nearly all of its time was the new container's start (a fresh bwrap with
 * the whole plan is 3x a bare bwrap by itself). So when a one-shot session
 * closes, sboxd makes the next one ahead, from the loop, while nothing
 * waits: a session made exactly as that create would make it (same
 * project, profile asked for, client environment and uid), its container
 * started and ready, but not registered, recorded or announced. The next
 * one-shot create of the same project, profile asked for and uid takes it
 * when, planned again now (with the client's environment of now) with
 * the spare's id and scratch folder, its plan and file-guard spec are the
 * same text as the spare's, the config and the protected names are those
 * the spare was made with and the project folder is the same inode; it is
 * then registered, recorded and announced as a new session would be (a
 * spare still starting gets the create as its waiter). Anything else drops
 * the spare and the create goes on as without one: what runs is always
 * what a create made now would run (fail closed: a spare that cannot be
 * compared is dropped).
 *
 * Never for a session made inside a sandbox, with a provider, model or
 * space, or closed with its client. One spare at most; it is dropped
 * after SPARE_IDLE_S unused, at shutdown, and when its container ends. */

#include "daemon/session/session-internal.h"
#include "daemon/session/session.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/container/container.h"
#include "daemon/log.h"
#include "daemon/proxy/proxy-proc.h"
#include "daemon/container/rmtree.h"
#include "daemon/sboxd.h"
#include "policy/guard.h"
#include "policy/plan.h"
#include "policy/profile.h"

#define SPARE_IDLE_S 120

/* What a spare was made for: a one-shot create's own parameters. */
struct session_spare_key {
	char   *project;
	char   *sandbox;  /* NULL: the config's choice */
	json_t *env;
	uid_t   uid;
};

static struct session *spare_now;       /* the spare, or NULL */
static struct session_spare_key *spare_next; /* the one to make */
static struct event *spare_timer;       /* make it / drop it unused */
static int spare_stopped;

/* Free a key. */
void
session_spare_key_free(struct session_spare_key *k)
{
	if (k == NULL)
		return;
	free(k->project);
	free(k->sandbox);
	json_decref(k->env);
	free(k);
}

/* The key of a create that may use a spare (a one-shot create from the
 * host, nothing but project, profile and environment asked), or NULL. */
struct session_spare_key *
session_spare_key(const struct session_params *p, const char *project)
{
	struct session_spare_key *k;

	if (!p->one_shot || p->parent != NULL || p->provider != NULL ||
	    p->model != NULL || p->space != NULL || p->close_with_client ||
	    (k = calloc(1, sizeof *k)) == NULL)
		return NULL;
	k->project = strdup(project);
	k->sandbox = p->sandbox ? strdup(p->sandbox) : NULL;
	k->env = p->env ? json_deep_copy(p->env) : json_object();
	k->uid = p->uid;
	if (k->project == NULL || (p->sandbox && k->sandbox == NULL) ||
	    k->env == NULL) {
		session_spare_key_free(k);
		return NULL;
	}
	return k;
}

/* Is a the same key as b? (The environment is not compared: what of it
 * enters the sandbox is in the plan, compared when the spare is taken.) */
static int
spare_key_same(const struct session_spare_key *a,
    const struct session_spare_key *b)
{
	return a != NULL && b != NULL && a->uid == b->uid &&
	    strcmp(a->project, b->project) == 0 &&
	    ((a->sandbox == NULL && b->sandbox == NULL) || (a->sandbox &&
	    b->sandbox && strcmp(a->sandbox, b->sandbox) == 0));
}

/* Print a NULL-terminated list with a label, one a line. */
static void
spare_dump_strv(FILE *f, const char *label, char **v)
{
	for (; v != NULL && *v != NULL; v++)
		fprintf(f, "%s %s\n", label, *v);
}

/* The text a spare is compared by: the plan (plan_dump), the file
 * guard's spec but its names (those are the protected-names file's and
 * the config's, compared by their generation), the profile's provenance,
 * the config's and names' generations. NULL when out of memory. */
char *
session_spare_dump(const struct session *s)
{
	const struct guard_spec *g = s->plan->guard;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	plan_dump(s->plan, f);
	fprintf(f, "profile %s\nprovenance %s\nconfig %u\nprotected %u\n",
	    s->profile->name, s->profile->provenance ? s->profile->provenance :
	    "", sboxd.config_gen, session_protected_gen());
	if (g != NULL) {
		spare_dump_strv(f, "guard root", g->roots);
		fprintf(f, "guard home %s\nguard supervise %d\nguard names %zu\n",
		    g->home ? g->home : "-", g->supervise, g->table.n);
		spare_dump_strv(f, "guard missing", g->missing);
		spare_dump_strv(f, "guard exclude", g->exclude);
		spare_dump_strv(f, "guard nosock", g->nosock);
		spare_dump_strv(f, "guard private", g->private_dirs);
		for (i = 0; i < g->n_rules; i++)
			fprintf(f, "guard rule %d %s %s\n", (int)g->rules[i].access,
			    g->rules[i].path, g->rules[i].rule ? g->rules[i].rule :
			    "-");
		for (i = 0; i < g->n_accounts; i++) {
			fprintf(f, "guard account %s\n", g->accounts[i].root);
			spare_dump_strv(f, "guard writable", g->accounts[i].writable);
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Drop a spare not taken: its container, proxy, scratch folder and note
 * go; nothing of it was recorded or announced. */
static void
spare_drop(struct session *s, int sync)
{
	if (s == spare_now)
		spare_now = NULL;
	s->state = SESSION_CLOSED;
	if (s->proxy != NULL) {
		proxy_proc_free(s->proxy);
		s->proxy = NULL;
	}
	if (s->ct != NULL) {
		if (sync)
			container_destroy(s->ct);
		else
			container_close(s->ct, NULL, NULL);
		s->ct = NULL;
	}
	rmtree(s->scratch);
	session_drop_note(s);
	log_debug("session spare %s dropped", s->id);
	session_free(s);
}

/* A spare closed for any reason before it was taken (its container
 * ended, it failed to start): dropped. */
void
session_spare_closed(struct session *s)
{
	spare_drop(s, 0);
}

/* From the loop: make the spare of the key waiting, or drop the spare
 * left unused. */
static void
spare_tick(evutil_socket_t fd, short what, void *arg)
{
	struct session_params p;
	struct session_spare_key *k = spare_next;
	sbox_error err;
	json_t *r = NULL;

	(void)fd;
	(void)what;
	(void)arg;
	if (k == NULL) {	/* the spare's time is up */
		if (spare_now != NULL)
			spare_drop(spare_now, 0);
		return;
	}
	spare_next = NULL;
	if (spare_stopped || sboxd.stopping) {
		session_spare_key_free(k);
		return;
	}
	memset(&p, 0, sizeof p);
	p.project = k->project;
	p.sandbox = k->sandbox;
	p.env = k->env;
	p.uid = k->uid;
	p.one_shot = 1;
	p.spare = k;
	error_clear(&err);
	if (session_create(&p, NULL, &r, &err) == -1) {
		log_debug("no spare session: %s", err.message);
		session_spare_key_free(k);	/* (else the spare holds it) */
	}
	json_decref(r);
	if (spare_now != NULL && spare_timer != NULL)
		event_add(spare_timer, &(struct timeval){ SPARE_IDLE_S, 0 });
}

/* Arm the timer at once or after sec seconds. */
static void
spare_arm(int sec)
{
	if (spare_timer == NULL && sboxd.base != NULL)
		spare_timer = evtimer_new(sboxd.base, spare_tick, NULL);
	if (spare_timer != NULL)
		event_add(spare_timer, &(struct timeval){ sec, 0 });
}

/* A one-shot session of key k closed: make the next one like it ahead
 * (the spare there is dropped unless it is of the same key). Takes k. */
void
session_spare_later(struct session_spare_key *k)
{
	if (k == NULL)
		return;
	if (spare_stopped || sboxd.stopping || sboxd.base == NULL) {
		session_spare_key_free(k);
		return;
	}
	if (spare_now != NULL && spare_key_same(spare_now->spare, k)) {
		session_spare_key_free(k);
		return;
	}
	if (spare_now != NULL)
		spare_drop(spare_now, 0);
	session_spare_key_free(spare_next);
	spare_next = k;
	spare_arm(0);
}

/* The session just made as a spare (session_create with p->spare): kept
 * as the one spare. */
void
session_spare_keep(struct session *s)
{
	if (spare_now != NULL && spare_now != s)
		spare_drop(spare_now, 0);
	spare_now = s;
}

/* Is the project s holds the folder fd is open on (the same inode)? */
static int
spare_same_folder(const struct session *s, int fd)
{
	struct stat a, b;

	return s->project_fd >= 0 && fd >= 0 && fstat(s->project_fd, &a) == 0 &&
	    fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The spare for a create of key k whose project is open on project_fd,
 * taken out of the spare slot when it is of that key (the caller compares
 * its plan, then adopts or drops it: session_spare_give_back), else
 * NULL; a spare of another key is dropped. */
struct session *
session_spare_take(const struct session_spare_key *k, int project_fd)
{
	struct session *s = spare_now;

	if (s == NULL || k == NULL)
		return NULL;
	spare_now = NULL;
	if (spare_timer != NULL)
		event_del(spare_timer);
	if (!spare_key_same(s->spare, k) || !spare_same_folder(s, project_fd) ||
	    s->state >= SESSION_CLOSING || s->spare_dump == NULL) {
		spare_drop(s, 0);
		return NULL;
	}
	return s;
}

/* A spare taken but not the same as the create's plan: dropped. */
void
session_spare_reject(struct session *s)
{
	spare_drop(s, 0);
}

/* Daemon shutdown: drop the spare, make no more. */
void
session_spare_stop(void)
{
	spare_stopped = 1;
	session_spare_key_free(spare_next);
	spare_next = NULL;
	if (spare_now != NULL)
		spare_drop(spare_now, 1);
	if (spare_timer != NULL) {
		event_free(spare_timer);
		spare_timer = NULL;
	}
}
