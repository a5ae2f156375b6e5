/* session-gitcfg.c: a session's writable folders are scanned for git
 * repositories when it is made, and whatever their config names is kept
 * read-only and missing-proof in its plan (daemon/gitcfg.c finds it,
 * policy/plan-git.c protects it). Before each command the files that
 * config was read from are stat'ed again: when one changed (the person
 * ran `git config` on the host, added an include), the config is read
 * again and the new paths go to the running file guard first. */
#include <stdlib.h>

#include "daemon/container.h"
#include "daemon/gitcfg.h"
#include "daemon/log.h"
#include "daemon/session.h"
#include "policy/guard.h"
#include "policy/plan.h"
#include "policy/strv.h"

/* Scan the plan's guarded roots and protect what the config names. */
int
session_gitcfg_start(struct session *s, sbox_error *err)
{
	struct gitcfg *g;

	if (!s->plan->sandboxed || s->plan->guard == NULL ||
	    s->plan->guard->roots == NULL || s->plan->guard->roots[0] == NULL)
		return 0;
	if ((g = calloc(1, sizeof *g)) == NULL)
		return error_nomem(err);
	if (gitcfg_scan(s->plan->guard->roots, s->plan->guard->home, g,
	    err) < 0) {
		free(g);
		return error_context(err, "git config");
	}
	if (plan_git_named(s->plan, g->paths, g->kinds, 1, NULL, err) < 0) {
		gitcfg_free(g);
		free(g);
		return error_context(err, "git config");
	}
	s->gitcfg = g;
	return 0;
}

/* Read the config again when a watched file changed. */
int
session_gitcfg_refresh(struct session *s, sbox_error *err)
{
	struct gitcfg *g = s->gitcfg, now;
	char **added = NULL;
	int rc;

	if (g == NULL || s->ct == NULL || !gitcfg_changed(g))
		return 0;
	if (gitcfg_scan(g->roots, g->home, &now, err) < 0)
		return error_context(err, "git config changed");
	rc = plan_git_named(s->plan, now.paths, now.kinds, 0, &added, err);
	if (rc == 0 && added != NULL)
		rc = container_guard_protect(s->ct, added, err);
	if (rc == 0) {
		log_info("session %s: git config changed, %zu more path(s) kept "
		    "read-only", s->id, strv_len(added));
		gitcfg_free(g);
		*g = now;
	} else
		gitcfg_free(&now);
	strv_free(added);
	return rc < 0 ? error_context(err, "git config changed") : 0;
}

/* Release the session's git config state. */
void
session_gitcfg_free(struct session *s)
{
	if (s->gitcfg != NULL) {
		gitcfg_free(s->gitcfg);
		free(s->gitcfg);
		s->gitcfg = NULL;
	}
}
