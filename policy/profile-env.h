/* profile-env.h: the variables a provider entry sets in a profile. */
#ifndef SBOX_PROFILE_ENV_H
#define SBOX_PROFILE_ENV_H

#include "policy/profile-types.h"

/* Add "NAME=VALUE" to p->env_values, replacing an earlier NAME. */
int profile_env_set_value(struct profile *p, const char *name, const char *value);

#endif
