/* plan-protect.h: what a plan keeps read-only or hidden inside what
 * it grants (plan-protect.c). */
#ifndef SBOX_PLAN_PROTECT_H
#define SBOX_PLAN_PROTECT_H

#include "policy/plan-builder.h"

struct profile;

/* Keep path read-only (or, missing, uncreatable) when a grant makes it
 * writable. */
void plan_protect(struct plan_builder *b, const char *path, int dir_hint,
    const char *rule);
/* Apply fn to base/rel for each entry of list (a trailing '/' marks folders). */
void plan_each(struct plan_builder *b, const char *base,
    const char *const *list,
    void (*fn)(struct plan_builder *, const char *, int, const char *),
    const char *rule);
/* The read-only and hidden rules inside the grants. */
void plan_protections(struct plan_builder *b, const struct profile *pr);

#endif
