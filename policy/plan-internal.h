/* plan-internal.h: what the policy/plan*.c files share. */
#ifndef SBOX_PLAN_INTERNAL_H
#define SBOX_PLAN_INTERNAL_H

#include "policy/policy.h"

/* Fill the plan's limits from the defaults and the profile (plan-net.c). */
void plan_limits(struct plan_limits *l, const struct profile *pr);
/* Fill the plan's network settings (plan-net.c). */
int plan_net(struct plan *plan, const struct plan_context *ctx,
    const struct profile *pr, sbox_error *err);

#endif
