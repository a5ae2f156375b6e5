/* policy.h: what a session's sandbox is: the precedence of the config's
 * levels with provenance, narrowing under a parent sandbox, exclusions, and
 * the plan (see plan.h) built from a resolved profile. */
#ifndef SBOX_POLICY_H
#define SBOX_POLICY_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "policy/config.h"
#include "policy/plan.h"
#include "policy/profile.h"
#include "protocol/error.h"

/* What a session is created with; any field may be NULL. */
struct resolve_request {
	const char *sandbox;   /* explicit profile for this session */
	const char *model;
	const char *provider;
	const char *project;   /* project folder; "~" expands, trailing '/' ignored */
	const char *space;
};

/* The profile for a session: the most specific level that names a sandbox
 * wins: session (`sandbox`), then the model's entry, the provider's, the
 * project's (the longest configured folder that contains req->project), the
 * space's, then sandbox.all_sessions; with nothing anywhere the answer is
 * "none". p->provenance tells which ("strict, from project /home/me/Lib",
 * "workspace, from all_sessions", "none, by default"). The provider entry's
 * hosts and env values are added to the result, and the config's `resolve`
 * table is copied in, so the result is self-contained (store it with
 * profile_to_json). Errors: E_PROFILE_NOT_FOUND (field "sandbox") for an
 * unknown explicit profile, E_INVALID_PARAMS (field "project") for a relative
 * project path. cfg may be NULL (an empty config). */
struct profile *policy_resolve(const struct config *cfg,
    const struct resolve_request *req, sbox_error *err);

/* The profile of a session created from inside a sandboxed session: child
 * may be at most as wide as parent on every axis, else E_NARROWING with the
 * axis as field: sandbox (a sandboxed parent cannot create an unsandboxed
 * child: an agent turns a sandbox on, never off), project_access, network,
 * hosts (each covered by a parent pattern, or parent network "internet"),
 * private_hosts, local_ports, mcp_servers, folders.read_write (each inside a
 * parent read_write folder), folders.read_only (inside a parent folder), env
 * and env_values (named by the parent), run_outside (never stays never),
 * exclude (each one of the parent's). The result is a copy of child with the
 * parent's denied folders added, each limit the smaller of the two, and the
 * parent's resolve table. An unsandboxed parent allows any child. */
struct profile *policy_narrow(const struct profile *parent,
    const struct profile *child, sbox_error *err);

/* Does argv (joined with single spaces) match one of p->exclude? Patterns are
 * fnmatch(3) globs without FNM_PATHNAME ('*' also matches '/' and spaces);
 * a pattern ending in " *" also matches the bare command: "docker *" matches
 * "docker run x" and "docker", not "dockerd". Returns 1 on a match. */
int policy_exclude_match(const struct profile *p, char *const *argv);

/* How the planner looks at the host's files; tests supply a fake one. */
struct plan_fs {
	/* stat(2) following symlinks: 0, or -1 when path does not exist */
	int   (*stat)(void *arg, const char *path, struct stat *st);
	/* the first `max` bytes of a file, NUL-terminated and malloc'd, or NULL */
	char *(*read)(void *arg, const char *path, size_t max);
	/* the names in a folder (no "." nor ".."), NULL-terminated and malloc'd
	 * (free with strv_free), or NULL */
	char **(*list)(void *arg, const char *dir);
	void *arg;
	/* where path leads when it is a symbolic link (malloc'd), NULL when it
	 * is not one; may itself be NULL (no links) */
	char *(*resolve)(void *arg, const char *path);
};

/* A session's context for policy_plan. Paths are absolute host paths. */
struct guard_table;

struct plan_context {
	const char *project;          /* project folder (ignored by "lab") */
	const char *scratch;          /* session scratch folder */
	const char *home;             /* the user's home folder */
	const char *user;             /* user name (USER, LOGNAME) */
	uid_t       uid;              /* uid/gid the sandbox presents */
	gid_t       gid;
	int         is_root;          /* sboxd runs as uid 0: hide root-only files */
	const char *const *sbox_paths;/* sbox's own config, state dir, socket dir;
	                                 NULL-terminated, hidden */
	const char *xdg_runtime_dir;  /* the user's $XDG_RUNTIME_DIR, or NULL */
	char *const *env;             /* client environment, "N=V", NULL-terminated */
	char *const *registry_hosts;  /* registry host patterns for network
	                                 "registries"; NULL: registries_collect()
	                                 with home, env and registries_file */
	const char *registries_file;  /* installer's defaults file for
	                                 registries_collect, or NULL */
	const char *hostname;         /* uts name inside, NULL: "sbox" */
	const char *cache_root;       /* sbox's own caches of this profile
	                                 (policy/caches.h), bound read-write
	                                 at ~/<rel>; NULL: no caches */
	const struct plan_fs *fs;     /* NULL: the real filesystem */
	const char *provider_home;    /* the provider's own home folder (host
	                                 path) when its profile keeps one */
	const struct plan_path_rule *inherit; /* a parent sandbox's rules: its */
	size_t      n_inherit;        /* read-only and hidden ones stay so here */
	const struct guard_table *protected; /* the protected names (data file
	                                 and config); NULL: none */
	int         no_read_reports;  /* sandbox.report_reads false: the
	                                 guard gets no rules to report reads by */
};

/* Build the plan for a resolved profile (see plan.h and the defaults listed
 * in policy/plan.c). For "none" the plan has sandboxed = 0, the client's
 * environment unchanged and no mounts. NULL with err on failure. */
struct plan *policy_plan(const struct profile *p, const struct plan_context *ctx,
    sbox_error *err);

#endif
