/* session-gitcfg.c: a session's writable folders are scanned for git
 * repositories when it is made, and whatever their config names is kept
 * read-only and missing-proof in its plan (daemon/session/gitcfg.c finds it,
 * policy/plan-git.c protects it). The files that config was read from are
 * stat'ed again before each command and each file.write, and every
 * SESSION_GITCFG_TICK_MS for the jobs already running: when one changed
 * (the person ran `git config` on the host, added an include), the config
 * is read again and the new paths go to the running file guard. The
 * person's agents' settings files (session-agentcfg.c) are kept the same
 * way: what their values name is protected, and a change reads them
 * again. */
#include <event2/event.h>
#include <stdlib.h>

#include "daemon/container/container.h"
#include "daemon/session/gitcfg.h"
#include "daemon/session/session-agentcfg.h"
#include "policy/config.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/guard.h"
#include "policy/plan.h"
#include "policy/strv.h"

#define SESSION_GITCFG_TICK_MS 2000

/* A session's git config state. */
struct session_gitcfg {
	struct gitcfg    g;
	struct session_agentcfg a;  /* the agents' settings */
	struct session  *s;
	struct event    *tick;
	int              broken;  /* the plan took paths the guard did not */
};

/* The periodic look: jobs already running get the new paths too. */
static void
session_gitcfg_tick(evutil_socket_t fd, short what, void *arg)
{
	struct session_gitcfg *sg = arg;
	sbox_error err = { 0 };

	(void)fd;
	(void)what;
	if (sg->s->ct != NULL && container_is_ready(sg->s->ct) &&
	    session_gitcfg_refresh(sg->s, &err) < 0)
		log_warn("session %s: %s (the next command will not start "
		    "until it can be read)", sg->s->id, err.message);
}

/* The person's home folder (the agents' settings are there). */
static const char *
session_gitcfg_home(void)
{
	return sboxd.config != NULL && sboxd.config->home != NULL ?
	    sboxd.config->home : getenv("HOME");
}

/* The agents' settings changed: read them again and send the paths they
 * name now to the running guard. 0, or -1 with err. */
static int
session_gitcfg_agents(struct session_gitcfg *sg, sbox_error *err)
{
	struct session *s = sg->s;
	struct session_agentcfg now;
	char **added = NULL;
	int rc;

	if (session_agentcfg_scan(sboxd.config, session_gitcfg_home(),
	    s->plan->project, &now, err) < 0)
		return -1;
	rc = plan_git_named(s->plan, now.named.paths, now.kinds, 0, &added,
	    err);
	if (rc == 0 && added != NULL)
		rc = container_guard_protect(s->ct, added, err);
	if (rc == 0) {
		log_info("session %s: an agent's settings changed, %zu more "
		    "path(s) kept read-only", s->id, strv_len(added));
		session_agentcfg_free(&sg->a);
		sg->a = now;
	} else
		session_agentcfg_free(&now);
	strv_free(added);
	return rc;
}

/* Scan the plan's guarded roots and protect what the config names. */
int
session_gitcfg_start(struct session *s, sbox_error *err)
{
	struct timeval tv = { SESSION_GITCFG_TICK_MS / 1000,
	    (SESSION_GITCFG_TICK_MS % 1000) * 1000 };
	struct session_gitcfg *sg;

	if (!s->plan->sandboxed || s->plan->guard == NULL ||
	    s->plan->guard->roots == NULL || s->plan->guard->roots[0] == NULL)
		return 0;
	if ((sg = calloc(1, sizeof *sg)) == NULL)
		return error_nomem(err);
	sg->s = s;
	if (gitcfg_scan(s->plan->guard->roots, s->plan->guard->home, &sg->g,
	    err) < 0) {
		free(sg);
		return error_context(err, "git config");
	}
	s->gitcfg = sg;
	if (plan_git_named(s->plan, sg->g.paths, sg->g.kinds, 1, NULL,
	    err) < 0) {
		session_gitcfg_free(s);
		return error_context(err, "git config");
	}
	if (session_agentcfg_scan(sboxd.config, session_gitcfg_home(),
	    s->plan->project, &sg->a, err) < 0 ||
	    plan_git_named(s->plan, sg->a.named.paths, sg->a.kinds, 1, NULL,
	    err) < 0) {
		session_gitcfg_free(s);
		return error_context(err, "the agents' settings");
	}
	if (sboxd.base != NULL && (sg->tick = event_new(sboxd.base, -1,
	    EV_PERSIST, session_gitcfg_tick, sg)) != NULL)
		event_add(sg->tick, &tv);
	return 0;
}

/* Read the config again when a watched file changed. */
int
session_gitcfg_refresh(struct session *s, sbox_error *err)
{
	struct session_gitcfg *sg = s->gitcfg;
	struct gitcfg now;
	char **added = NULL;
	int rc;

	if (sg != NULL && sg->broken)
		return error_set(err, E_SANDBOX_SETUP, "the file guard could not "
		    "take the paths git's config names since the session "
		    "started: close this session and start a new one");
	if (sg == NULL || s->ct == NULL)
		return 0;
	if (session_agentcfg_changed(&sg->a) && session_gitcfg_agents(sg,
	    err) < 0) {
		sg->broken = 1;	/* fail closed from now on */
		return error_context(err, "an agent's settings changed");
	}
	if (!gitcfg_changed(&sg->g))
		return 0;
	if (gitcfg_scan(sg->g.roots, sg->g.home, &now, err) < 0)
		return error_context(err, "git config changed");
	rc = plan_git_named(s->plan, now.paths, now.kinds, 0, &added, err);
	if (rc == 0 && added != NULL)
		rc = container_guard_protect(s->ct, added, err);
	if (rc == 0) {
		log_info("session %s: git config changed, %zu more path(s) kept "
		    "read-only", s->id, strv_len(added));
		gitcfg_free(&sg->g);
		sg->g = now;
	} else {
		sg->broken = 1;	/* fail closed from now on */
		gitcfg_free(&now);
	}
	strv_free(added);
	return rc < 0 ? error_context(err, "git config changed") : 0;
}

/* Release the session's git config state. */
void
session_gitcfg_free(struct session *s)
{
	struct session_gitcfg *sg = s->gitcfg;

	if (sg == NULL)
		return;
	if (sg->tick != NULL)
		event_free(sg->tick);
	gitcfg_free(&sg->g);
	session_agentcfg_free(&sg->a);
	free(sg);
	s->gitcfg = NULL;
}
