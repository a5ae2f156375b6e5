/* profile.h: a sandbox profile, built-in or from the config, and its JSON
 * form (stored with a session so that a later config change does not change
 * a running session). */
#ifndef SBOX_PROFILE_H
#define SBOX_PROFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"

enum profile_network {
	PROFILE_NET_NONE,       /* no host at all (a provider's hosts only) */
	PROFILE_NET_HOSTS,      /* the profile's hosts only (+ a provider's) */
	PROFILE_NET_REGISTRIES, /* package registries and code hosts (+ hosts) */
	PROFILE_NET_INTERNET,   /* any public host */
};

enum profile_run_outside {
	PROFILE_RUN_ASK,        /* a command may ask to run outside; the user decides */
	PROFILE_RUN_NEVER,      /* no command ever leaves the sandbox */
};

/* Per-profile limits; -1 = not set (the plan's default applies). */
struct profile_limits {
	int64_t pids, memory_mb, tmp_mb, output_mb, timeout_s, nofile;
	int64_t cache_mb;          /* package caches of one project (or of the
	                              profile with "caches": "profile") */
};

/* A static host table entry (config "resolve"), copied into resolved profiles. */
struct profile_resolve {
	char  *host;
	char **addrs;              /* NULL-terminated IP literals */
};

struct profile {
	char  *name;               /* "workspace", "strict", "lab", "none", or custom */
	char  *extends;            /* parent profile name, NULL for built-ins */
	char  *provenance;         /* "strict, from project /home/me/Lib"; NULL until resolved */
	int    sandboxed;          /* 0 only for "none" */
	int    project_access;     /* 0 for "lab" (and profiles extending it) */
	enum profile_network network;
	char **hosts;              /* host patterns (hostpat.h), canonical */
	char **private_hosts;      /* exact names that may resolve to a private address */
	int   *local_ports;        /* local_ports[n_local_ports], 1..65535 */
	size_t n_local_ports;
	char **mcp_servers;        /* MCP servers offered to a sandboxed session */
	char **folders_rw;         /* absolute, normalised ("~" expanded at load) */
	char **folders_ro;
	char **folders_deny;       /* always wins over rw/ro and the defaults */
	char **env;                /* variable names that pass from the client (NAME or PREFIX*) */
	char **env_values;         /* "NAME=VALUE" set by a provider entry */
	enum profile_run_outside run_outside;
	int    caches_shared;      /* "caches": "profile" (every project of the
	                              profile shares them); 0: "project" */
	char **exclude;            /* command patterns that always run outside (with approval) */
	struct profile_limits limits;
	struct profile_resolve *resolve;  /* resolve[n_resolve] */
	size_t n_resolve;
	/* from the session's provider entry (profile-provider.c) */
	char  *provider;           /* its name, NULL when none */
	int    provider_home;      /* "home": "persistent" */
	char **provider_hosts;     /* reachable in every network mode */
	char **account_folders;    /* its folders of home, read-write */
	char **account_protect;    /* in them (and, in its own home, in every
	                              agent's state folder): what runs programs
	                              later, read-only ('/' ends a folder) */
	char **hidden_accounts;    /* every other agent's account folders */
	char **state_folders;      /* its own home: the agents' state folders
	                              it may create (run-later files not) */
};

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

/* The full JSON form of p (every key present; provider env values included:
 * this is the form stored with a session). NULL on ENOMEM. */
json_t *profile_to_json(const struct profile *p);
/* The same with env_values' values replaced by "(set)", for display. */
json_t *profile_to_json_public(const struct profile *p);
/* Parse and validate the form written by profile_to_json. */
struct profile *profile_from_json(const json_t *obj, sbox_error *err);

/* profile-provider.c: free, copy (*ok = 0 on ENOMEM), JSON keys
 * (provider, provider_home, provider_hosts, account_folders) of the
 * provider part of a profile; apply_stored returns 1 for another key. */
void profile_provider_free(struct profile *p);
void profile_provider_copy(struct profile *c, const struct profile *p, int *ok);
void profile_provider_to_json(const struct profile *p, json_t *o);
int profile_provider_apply_stored(struct profile *p, const char *key,
    const json_t *v, const char *f, sbox_error *err);

/* Add "NAME=VALUE" to p->env_values, replacing an earlier NAME. */
int profile_set_env_value(struct profile *p, const char *name, const char *value);
/* Parse a static host table ({"name": ["addr", ...]}) at JSON path `path`
 * into *out and *n (names are plain host names, addresses IP literals). */
int profile_parse_resolve(const json_t *obj, const char *path,
    struct profile_resolve **out, size_t *n, sbox_error *err);
/* Free a host table. */
void profile_resolve_free(struct profile_resolve *r, size_t n);
/* Deep-copy a host table into *out; -1 on ENOMEM. */
int profile_resolve_copy(const struct profile_resolve *r, size_t n,
    struct profile_resolve **out);
/* True when name is a valid profile name ([a-z0-9][a-z0-9_.-]*, <= 64). */
int profile_name_valid(const char *name);

#endif
