/* profile-types.h: a sandbox profile's structure (struct profile) and
 * its parts; functions on it are in profile.h and the profile-*.h headers. */
#ifndef SBOX_PROFILE_TYPES_H
#define SBOX_PROFILE_TYPES_H

#include <stddef.h>
#include <stdint.h>

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
	char **account_writable;   /* what its agent writes in them (absolute
	                              patterns, '/' ends a folder); the rest
	                              of an account folder is read-only */
	char **account_private;    /* folders of its account folders each
	                              session gets an empty one of its own */
	char **account_keep;       /* "FILE\tKEY": the keys of a home file its
	                              CLI keeps state in that pass between
	                              the host and the sandbox ("FILE\t"
	                              alone starts a file's list) */
	char **account_signin;     /* its sign-in files there: readable, not
	                              writable */
	char **state_folders;      /* its own home: the agents' state folders
	                              it may create (run-later files not) */
};

#endif
