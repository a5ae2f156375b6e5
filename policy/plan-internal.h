/* plan-internal.h: what the policy/plan*.c files share (plan-net.c's and
 * plan-provider.c's steps; the headers of the lower plan files). */
#ifndef SBOX_PLAN_INTERNAL_H
#define SBOX_PLAN_INTERNAL_H

#include "policy/policy.h"
#include "policy/plan-builder.h"
#include "policy/plan-explode.h"
#include "policy/plan-git.h"
#include "policy/plan-protect.h"

/* Refuse a project or read-write folder that is (or holds) the home folder
 * (plan-net.c). */
int plan_not_home(const struct profile *pr, const struct plan_context *ctx,
    sbox_error *err);
/* Fill the plan's limits from the defaults and the profile (plan-net.c). */
void plan_limits(struct plan_limits *l, const struct profile *pr);
/* Fill the plan's network settings (plan-net.c). */
int plan_net(struct plan *plan, const struct plan_context *ctx,
    const struct profile *pr, sbox_error *err);

/* Inside the project and read-write folders (and a writable home): files
 * that run programs later; under home only (plan.c). A trailing '/' marks
 * a folder. */
/* The provider's home folder and account folder protections, added to a
 * built plan (plan-provider.c). */
int plan_provider(struct plan *p, const struct profile *pr,
    const struct plan_context *ctx, sbox_error *err);
/* The protected names of a session of pr (its own account folders taken
 * out, their run-later files and the other agents' folders added); *out
 * NULL when ctx's apply as they are (plan-provider.c). */
struct guard_table;
int plan_provider_table(const struct profile *pr,
    const struct plan_context *ctx, struct guard_table **out,
    sbox_error *err);

#endif
