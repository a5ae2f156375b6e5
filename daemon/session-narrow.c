/* session-narrow.c: a session created from inside a sandbox is at most what
 * its parent's PLAN allows, not its parent's list of paths: its project must
 * be a folder the parent's plan lets it write and that no protection of the
 * parent covers (git metadata, files that run programs later, hidden
 * folders); it gets its parent's resolved profile when it names none; and
 * every read-only or hidden rule of the parent that falls inside its folders
 * is carried into its own plan (policy_plan's inherited rules). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/sboxd.h"
#include "daemon/session.h"
#include "policy/path.h"
#include "policy/plan.h"
#include "policy/policy.h"
#include "policy/profile.h"

/* True when dir (a held folder) looks like a git folder: HEAD with objects
 * and refs, or HEAD with commondir. */
static int
session_narrow_is_gitdir(int dir)
{
	struct stat st;

	if (fstatat(dir, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (fstatat(dir, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return fstatat(dir, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstatat(dir, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* May a session created inside parent work in project (held as fd)? Only
 * in a folder its plan lets it write, outside every protection. */
int
session_narrow_project(const struct session *parent, const char *project,
    int fd, sbox_error *err)
{
	const struct plan_path_rule *r;
	const char *c;

	if (!parent->plan->sandboxed)
		return 0;
	r = plan_explain(parent->plan, project);
	if (r == NULL || r->access != PLAN_ACCESS_RW ||
	    (strcmp(r->rule, PLAN_RULE_PROJECT) != 0 &&
	    strcmp(r->rule, PLAN_RULE_PROFILE_RW) != 0 &&
	    strcmp(r->rule, PLAN_RULE_SCRATCH) != 0))
		return error_set_field(err, E_NARROWING, "project", "a session "
		    "created inside a sandbox can only work in a folder its "
		    "sandbox may write (%s is %s%s%s)", project, r ?
		    plan_access_name(r->access) : "not in the sandbox",
		    r ? ": " : "", r ? r->rule : "");
	for (c = project; (c = strstr(c, "/.git")) != NULL; c += 5) {
		if (c[5] == '\0' || c[5] == '/')
			return error_set_field(err, E_NARROWING, "project",
			    "%s is inside git metadata (%s): a session cannot "
			    "work there", project, PLAN_RULE_RUNS_LATER);
	}
	if (session_narrow_is_gitdir(fd))
		return error_set_field(err, E_NARROWING, "project", "%s is a git "
		    "folder (%s): a session cannot work there", project,
		    PLAN_RULE_RUNS_LATER);
	return 0;
}

/* Resolve the profile for the request: under a parent sandbox, the
 * parent's resolved profile when none is named, else the named one
 * narrowed to the parent's. */
struct profile *
session_narrow_resolve(const struct session_params *p, sbox_error *err)
{
	struct resolve_request req = { p->sandbox, p->model, p->provider,
	    p->project, p->space };
	struct profile *prof, *narrowed;
	struct session *parent;

	if (p->parent == NULL)
		return policy_resolve(sboxd.config, &req, err);
	if ((parent = session_find(p->parent, err)) == NULL)
		return NULL;
	if (p->sandbox == NULL)
		return profile_copy(parent->profile, err);
	if ((prof = policy_resolve(sboxd.config, &req, err)) == NULL)
		return NULL;
	narrowed = policy_narrow(parent->profile, prof, err);
	profile_free(prof);
	return narrowed;
}
