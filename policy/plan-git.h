/* plan-git.h: the git folders of a project that is a linked
 * worktree (plan-git.c). */
#ifndef SBOX_PLAN_GIT_H
#define SBOX_PLAN_GIT_H

#include "policy/plan-builder.h"

/* Grant a linked worktree's git folders (plan-git.c). */
void plan_grant_worktree(struct plan_builder *b, const char *project);
/* This worktree's own folder, read-write again once protections are sorted. */
void plan_rebind_worktree(struct plan_builder *b);

#endif
