/* plan-internal.h: what the policy/plan*.c files share. */
#ifndef SBOX_PLAN_INTERNAL_H
#define SBOX_PLAN_INTERNAL_H

#include "policy/policy.h"

/* Fill the plan's limits from the defaults and the profile (plan-net.c). */
void plan_limits(struct plan_limits *l, const struct profile *pr);
/* Fill the plan's network settings (plan-net.c). */
int plan_net(struct plan *plan, const struct plan_context *ctx,
    const struct profile *pr, sbox_error *err);

/* Inside the project and read-write folders (and a writable home): files
 * that run programs later; under home only (plan.c). A trailing '/' marks
 * a folder. */
extern const char *const plan_runs_later[];
extern const char *const plan_home_runs_later[];
/* The provider's home folder and account folder protections, added to a
 * built plan (plan-provider.c). */
int plan_provider(struct plan *p, const struct profile *pr,
    const struct plan_context *ctx, sbox_error *err);

#endif
