/* profile-apply.h: a profile's JSON applied onto a profile, every
 * key validated; a static host table parsed. */
#ifndef SBOX_PROFILE_APPLY_H
#define SBOX_PROFILE_APPLY_H

#include <jansson.h>
#include <stddef.h>

#include "protocol/error.h"
#include "policy/profile-types.h"

/* Apply a profile object of the config (keys: extends, network, hosts,
 * private_hosts, local_ports, mcp_servers, folders{read_write, read_only,
 * deny}, env, run_outside, exclude, caches ("project" | "profile"),
 * limits{pids, memory_mb, tmp_mb, output_mb, timeout_s, nofile, cache_mb}) onto p: lists are added to, scalars replace.
 * `path` is the JSON path of obj for errors ("sandbox.profiles.company");
 * `home` expands "~". With `stored` set, the extra keys of profile_to_json
 * (name, sandboxed, provenance, project_access, env_values, resolve) are
 * accepted too. Unknown keys and wrong types are E_CONFIG errors whose field
 * is the full key ("sandbox.profiles.company.hosts[1]"). */
int profile_apply_json(struct profile *p, const json_t *obj, const char *path,
    const char *home, int stored, sbox_error *err);

/* Parse a static host table ({"name": ["addr", ...]}) at JSON path `path`
 * into *out and *n (names are plain host names, addresses IP literals). */
int profile_parse_resolve(const json_t *obj, const char *path,
    struct profile_resolve **out, size_t *n, sbox_error *err);

#endif
