/* plan.h: the platform-neutral sandbox plan that policy_plan() builds from a
 * resolved profile, and that the renderers (bwrap + seccomp on Linux, SBPL on
 * macOS) turn into the platform's form. Nothing here knows about a platform. */
#ifndef SBOX_PLAN_H
#define SBOX_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy/plan-types.h"

/* policy_plan's last step (policy/plan-guard.c): fill p->guard. */
struct profile;
struct plan_context;
int plan_guard(struct plan *p, const struct profile *pr,
    const struct plan_context *ctx);
/* Keep the paths a repository's git config names (daemon/session/gitcfg.c) that
 * lie strictly inside a guarded root (and above none) read-only and
 * missing-proof: each becomes a protected path of the guard (refused:
 * creating, writing, renaming it or a folder holding it, creating a name
 * on its way) and a read-only rule; with mounts, one that exists (a file
 * or folder, kinds[i] 1 or 2) is also bound read-only when nothing below
 * it is mounted. A path under one already kept is skipped. The paths
 * added are appended to *added (when not NULL). 0, or -1 with err (out
 * of memory, more than GUARD_MISSING_MAX paths). */
struct sbox_error;
int plan_git_named(struct plan *p, char *const *paths,
    const unsigned char *kinds, int mounts, char ***added,
    struct sbox_error *err);
/* Free a plan from policy_plan (policy/plan.c) and everything it owns. */
void plan_free(struct plan *p);
/* The path rule that decides `path` (longest matching prefix by whole
 * components, later rules win ties), or NULL when no rule covers it (the
 * path is then simply not in the sandbox). For explanations such as
 * "write to .git/hooks/pre-commit refused: read-only, files that run
 * programs later". */
const struct plan_path_rule *plan_explain(const struct plan *p, const char *path);
/* A stable, line-oriented text form of the whole plan (golden tests, debug). */
void plan_dump(const struct plan *p, FILE *f);
/* "hidden", "read-only", "read-write". */
const char *plan_access_name(enum plan_access a);

#endif
