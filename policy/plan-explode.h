/* plan-explode.h: mount points made inside read-only host binds
 * without writing to the host (plan-explode.c). */
#ifndef SBOX_PLAN_EXPLODE_H
#define SBOX_PLAN_EXPLODE_H

#include <stddef.h>

#include "protocol/error.h"
#include "policy/plan-builder.h"

/* Make the mount points of the mounts from first on inside read-only host
 * binds without writing to the host (plan-explode.c). */
int plan_explode(struct plan_builder *b, size_t first, sbox_error *err);
/* Make the tmpfs of each exploded grant read-only, once every mount is in
 * place inside it (plan-explode.c). */
void plan_explode_seal(struct plan_builder *b);

#endif
