/* profile.h: a sandbox profile, built-in or from the config, and its JSON
 * form (stored with a session so that a later config change does not change
 * a running session). */
#ifndef SBOX_PROFILE_H
#define SBOX_PROFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"
#include "policy/profile-types.h"
#include "policy/profile-name.h"
#include "policy/profile-resolve.h"
#include "policy/profile-env.h"
#include "policy/profile-apply.h"
#include "policy/profile-provider.h"

/* Names of the built-in profiles, NULL-terminated: workspace, strict, lab, none. */
extern const char *const profile_builtin_names[];

/* A new empty sandboxed profile (network none, run_outside ask, no limits). */
struct profile *profile_new(const char *name, sbox_error *err);
/* A built-in profile by name, or NULL (E_PROFILE_NOT_FOUND). */
struct profile *profile_builtin(const char *name, sbox_error *err);
/* True when name is one of the built-in profiles. */
int profile_is_builtin(const char *name);
/* A deep copy of p, or NULL (E_INTERNAL). */
struct profile *profile_copy(const struct profile *p, sbox_error *err);
/* Free p and everything it owns. */
void profile_free(struct profile *p);

/* "none" / "hosts" / "registries" / "internet"; "ask" / "never". */
const char *profile_network_name(enum profile_network n);
const char *profile_run_outside_name(enum profile_run_outside r);

/* The full JSON form of p (every key present; provider env values included:
 * this is the form stored with a session). NULL on ENOMEM. */
json_t *profile_to_json(const struct profile *p);
/* The same with env_values' values replaced by "(set)", for display. */
json_t *profile_to_json_public(const struct profile *p);
/* Parse and validate the form written by profile_to_json. */
struct profile *profile_from_json(const json_t *obj, sbox_error *err);

#endif
