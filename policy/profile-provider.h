/* profile-provider.h: the provider part of a profile (from the
 * session's provider entry). */
#ifndef SBOX_PROFILE_PROVIDER_H
#define SBOX_PROFILE_PROVIDER_H

#include <jansson.h>

#include "protocol/error.h"
#include "policy/profile-types.h"

/* profile-provider.c: free, copy (*ok = 0 on ENOMEM), JSON keys
 * (provider, provider_home, provider_hosts, account_folders) of the
 * provider part of a profile; apply_stored returns 1 for another key. */
void profile_provider_free(struct profile *p);
void profile_provider_copy(struct profile *c, const struct profile *p, int *ok);
void profile_provider_to_json(const struct profile *p, json_t *o);
int profile_provider_apply_stored(struct profile *p, const char *key,
    const json_t *v, const char *f, sbox_error *err);

#endif
