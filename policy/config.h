/* config.h: the user's sandbox configuration, ~/.config/sbox/config.json
 * (or `sboxd --config FILE`).
 *
 *   {
 *     "sandbox":   {"all_sessions": "workspace",
 *                   "protected": ["runs-later root .tool.json # tool X"],
 *                   "profiles": {"company": {"extends": "workspace", ...}}},
 *     "resolve":   {"pkgs.test": ["198.18.0.10"]},
 *     "spaces":    {"work": {"sandbox": "company"}},
 *     "projects":  {"/home/me/code/Lib": {"sandbox": "strict"}},
 *     "providers": {"ollama": {"sandbox": "strict", "hosts": [...], "env": {"K": "V"}}},
 *     "models":    {"local-llm": {"sandbox": "none"}},
 *     "approvals": {"timeout_s": 300, "burst": 5, "per_minute": 20},
 *     "daemon":    {"output_mb_per_session": 16, "output_mb_total": 256,
 *                   "disk_reserve_mb": 64}
 *   }
 *
 * The schema is strict: an unknown key, a wrong type, a bad host pattern, an
 * unknown profile name, an `extends` cycle or unknown parent is an E_CONFIG
 * error whose field is the JSON path of the key
 * ("sandbox.profiles.company.hosts[1]") and whose message reads
 * "FILE: KEY: why". A missing file is an empty config (every session
 * unsandboxed unless asked). Profile keys are described in profile.h.
 * A custom profile without `extends` starts from an empty sandboxed profile
 * (network none, run_outside ask); lists add to the parent's, scalars replace.
 * Built-in names cannot be redefined and `none` cannot be extended.
 * `~` expands to the home folder in folders and project keys; project keys
 * are normalised (no trailing slash).
 *
 * Nothing inside a project folder is ever read: a project never configures
 * its own sandbox. */
#ifndef SBOX_CONFIG_H
#define SBOX_CONFIG_H

#include <jansson.h>
#include <stdint.h>

#include "policy/guard.h"
#include "policy/profile.h"
#include "protocol/error.h"

#define CONFIG_MAX_BYTES (1024 * 1024)
#define CONFIG_APPROVALS_TIMEOUT_DEFAULT 300

/* One entry of spaces, projects, providers or models. */
struct config_binding {
	char  *key;            /* name, or the normalised project path */
	char  *sandbox;        /* profile it chooses, NULL when it says nothing */
	char **hosts;          /* providers: hosts added to the allowlist */
	char **env_values;     /* providers: "NAME=VALUE" added to the environment */
	int    home_persistent;/* providers: "home": "persistent" */
	char **account_folders;/* providers: folders of home, read-write */
	int    no_sandbox;     /* providers: "sandbox_capable": false */
	char **runs_later;     /* providers: paths in its account folders that
	                          run programs later ('/' ends a folder) */
	char **key_env;        /* providers: env names of its keys (passed) */
	char **state_folders;  /* providers (built-in, "home persistent"): its
	                          folders in its own home, hidden from others */
	int    builtin;        /* providers: known from the providers file */
	char **writable;       /* providers: the parts of its account folders
	                          its agent writes while it works (patterns,
	                          '/' ends a folder); the rest is read-only */
	char **signin;         /* providers: its sign-in files (readable,
	                          never writable) */
	char **settings;       /* providers: the settings files its CLI reads
	                          (absolute, or "./" + a path in the project):
	                          what their values name is protected */
	char **data_keys;      /* providers: key patterns of those files whose
	                          values are data, never paths to protect */
	char  *alias_of;       /* providers (built-in): the provider this name
	                          is another name of, NULL for the provider */
	char **pass_env;       /* providers: names of variables its CLI needs
	                          that are not secrets (passed from the client) */
	char **set_env;        /* providers: "NAME=VALUE" sbox sets inside */
	char **telemetry;      /* providers (built-in): host patterns its CLI
	                          contacts in the background (telemetry,
	                          feature flags, syncs): refused unless
	                          allowed, recorded once per session */
	char **private_dirs;   /* providers (built-in): folders of its account
	                          folders that each session gets a private,
	                          empty copy of (what its CLI sources or runs
	                          later, made per session, never the host's) */
	char **keep;           /* providers (built-in): "FILE\tKEY" for a file
	                          of the home outside its account folders that
	                          its CLI keeps state in: only the KEY patterns
	                          pass between the host and the sandbox */
};

struct config {
	char   *path;          /* file it came from */
	char   *home;          /* home used to expand "~" */
	char   *all_sessions;  /* profile for every session, NULL = not set */
	struct profile **profiles;   /* custom profiles, extends applied */
	size_t  n_profiles;
	struct config_binding *spaces, *projects, *providers, *models;
	size_t  n_spaces, n_projects, n_providers, n_models;
	struct profile_resolve *resolve;  /* static host table */
	size_t  n_resolve;
	int64_t approvals_timeout_s;      /* -1 = not set */
	int     approvals_burst;          /* 0 = not set */
	int     approvals_per_minute;     /* 0 = not set */
	struct guard_table *protected;    /* sandbox.protected: protected names
	                                     added to the data file's, or NULL */
	int     report_reads;             /* sandbox.report_reads (default 1):
	                                     report reads a hidden path refused */
	int     terminal_drop_osc;        /* terminal.drop_osc (default 1):
	                                     what the CLI shows drops the
	                                     sequences that act on the
	                                     person's machine */
	int64_t output_session_mb;        /* daemon.*: -1 = not set */
	int64_t output_total_mb;
	int64_t disk_reserve_mb;
	int64_t idle_close_s;             /* daemon.idle_close_s: -1 = not set */
};

/* The default config path: $XDG_CONFIG_HOME/sbox/config.json when that is
 * absolute, else HOME/.config/sbox/config.json (home NULL: $HOME, then the
 * password database). malloc'd, NULL when no home is known. */
char *config_default_path(const char *home);
/* Load and validate the config at path (NULL: config_default_path(NULL)). */
struct config *config_load(const char *path, sbox_error *err);
/* The same, but a missing file is an error (E_CONFIG, field "missing"):
 * for reloads, which never fall back to the empty config. */
struct config *config_load_existing(const char *path, sbox_error *err);
/* Same, with the home folder used for "~" given explicitly. */
struct config *config_load_home(const char *path, const char *home,
    sbox_error *err);
/* Validate an already parsed config document (path is only for messages). */
struct config *config_parse(const json_t *root, const char *path,
    const char *home, sbox_error *err);
/* Free a config. */
void config_free(struct config *cfg);

/* Seconds an approval waits for an answer (approvals.timeout_s), default
 * CONFIG_APPROVALS_TIMEOUT_DEFAULT; 0 means wait without a limit. */
int64_t config_approvals_timeout_s(const struct config *cfg);
/* Run-outside requests of one session (its child sessions counted with it)
 * that may wait for a decision at once (approvals.burst), and that may be
 * asked in one minute (approvals.per_minute); above, refused at once. */
#define CONFIG_APPROVALS_BURST_DEFAULT      5
#define CONFIG_APPROVALS_PER_MINUTE_DEFAULT 20
int config_approvals_burst(const struct config *cfg);
int config_approvals_per_minute(const struct config *cfg);
/* config-daemon.c: parse the "daemon" object (sboxd's own budgets). */
int config_parse_daemon(struct config *cfg, const json_t *obj,
    sbox_error *err);
/* Bytes of kept output one top-level session (with the sessions made
 * inside it) may hold (daemon.output_mb_per_session, default 16 MiB). */
uint64_t config_output_session_bytes(const struct config *cfg);
/* Bytes of kept output all sessions may hold (daemon.output_mb_total,
 * default 256 MiB). */
uint64_t config_output_total_bytes(const struct config *cfg);
/* Bytes sboxd keeps free on its state file system for its own records
 * (daemon.disk_reserve_mb, default 64 MiB). */
uint64_t config_disk_reserve_bytes(const struct config *cfg);
/* Seconds with no command, no client request and no close_with_client
 * client after which a session is closed (daemon.idle_close_s; 0: never,
 * the default). */
int64_t config_idle_close_s(const struct config *cfg);
/* config-provider.c: parse one key of a provider entry (hosts, env, home,
 * account_folders, sandbox_capable): 0, -1 with err, or 1 when key is not
 * a provider key. */
int config_provider_key(const struct config *cfg, struct config_binding *b,
    const char *key, const json_t *v, const char *f, sbox_error *err);
/* Free what the provider keys of b own. */
void config_provider_free(struct config_binding *b);
/* The provider parts of a resolved profile p that depend on every
 * provider of cfg (b: the session's provider, NULL when none): its key env
 * names, the run-later files of account folders, the other agents'
 * account folders (hidden; in its own home: state folders it may make). */
int config_provider_resolve(const struct config *cfg,
    const struct config_binding *b, struct profile *p, sbox_error *err);
/* True when a provider's name can name its home folder. */
int config_provider_name_safe(const char *name);

/* The custom profile called name, or NULL. */
const struct profile *config_find_profile(const struct config *cfg,
    const char *name);
/* The entry for key in one binding table, or NULL. */
const struct config_binding *config_find_binding(
    const struct config_binding *b, size_t n, const char *key);

/* Add host (a host pattern) to the `hosts` of custom profile `profile` in the
 * file at path (NULL: the default path), keeping everything else of the file.
 * The new document is validated as a whole before it replaces the file
 * (written to a temporary file, then renamed; mode 0600). Already present:
 * nothing is written. A built-in profile's hosts cannot change: that is an
 * E_CONFIG error that says to make a custom profile extending it; an unknown
 * profile is E_PROFILE_NOT_FOUND. */
int config_save_host(const char *path, const char *profile, const char *host,
    sbox_error *err);

/* The profile called name (built-in or custom), a copy to profile_free, for
 * sandbox.show; E_PROFILE_NOT_FOUND when there is none. */
struct profile *profile_get(const struct config *cfg, const char *name,
    sbox_error *err);
/* The names of all profiles, built-ins first then custom in file order,
 * NULL-terminated (free with strv_free); NULL on ENOMEM. */
char **profile_list(const struct config *cfg);

/* config-check.c: check the file at path (NULL: the default) and append
 * every error to errors as {"field", "message"} (not only the first);
 * returns how many (0: valid), -1 with err when it cannot be read. */
int config_check(const char *path, const char *home, json_t *errors,
    sbox_error *err);
/* Notes on a valid config: profile hosts that have no effect in its
 * network mode ("none", "internet"), a "*.d" pattern without "d"
 * (subdomains only); appended to notes as strings, how many. */
int config_check_notes(const char *path, const char *home, json_t *notes);
/* The notes of one profile, a new array of strings. */
json_t *config_check_profile_notes(const struct profile *p);

#endif
