/* profile-resolve.h: freeing and copying a profile's static host table. */
#ifndef SBOX_PROFILE_RESOLVE_H
#define SBOX_PROFILE_RESOLVE_H

#include <stddef.h>

#include "policy/profile-types.h"

/* Free a host table. */
void profile_resolve_free(struct profile_resolve *r, size_t n);
/* Deep-copy a host table into *out; -1 on ENOMEM. */
int profile_resolve_copy(const struct profile_resolve *r, size_t n,
    struct profile_resolve **out);

#endif
