/* agentcfg.h: what an agent's settings files name. The person's agent
 * CLIs (Claude Code, Codex, Gemini CLI, ...) run commands, hooks, status
 * lines, notifiers and MCP servers, and load env files and plugin folders,
 * that their settings name -- on the host, with the person's rights. The
 * keys that do so are many and each CLI adds more, so this module decides
 * on the VALUES, as gitconfig.c does for git: every string value that is,
 * or holds a word that is, a path (absolute, `~/...`, `$HOME/...`,
 * `$CLAUDE_PROJECT_DIR/...`, or relative with a '/', taken from the
 * project and from the settings file's folder; the script an interpreter
 * runs, whatever its name) names that path. A key the provider's data
 * marks as data (a key pattern of `providers.default`'s `data` lines) is
 * skipped.
 *
 * JSON (settings.json, ~/.claude.json, .mcp.json) is read with jansson,
 * with its key paths; a file jansson refuses (JSONC comments) and TOML
 * (Codex's config.toml) are read by a scanner of their string literals
 * that keeps the `[table]` and `key =` they belong to. Pure: no I/O. */
#ifndef SBOX_AGENTCFG_H
#define SBOX_AGENTCFG_H

#include <stddef.h>

#include "protocol/error.h"

#define AGENTCFG_FILE_MAX  (4 * 1024 * 1024) /* bytes of one settings file */
#define AGENTCFG_NAMED_MAX 4096              /* paths one scan may name */
#define AGENTCFG_SETTING_MAX 512             /* bytes of a "by" text */

/* Where a settings file is read. */
struct agentcfg_where {
	const char *home;     /* the home folder, for `~/` and $HOME */
	const char *project;  /* the session's project, or NULL */
	const char *file;     /* the settings file (absolute) */
};

/* The paths named, each with the setting that named it ("FILE: a.b[2]"). */
struct agentcfg_named {
	char   **paths;  /* NULL-terminated, absolute, lexically normalised */
	char   **by;     /* by[i] named paths[i] */
	size_t   n;
};

/* Append to out every path the settings text (len bytes) names; toml:
 * the text is TOML, else JSON (or JSONC). data: NULL-terminated key
 * patterns ("projects.*.allowedTools", '*' one key) whose values are data.
 * 0, or -1 with err (ENOMEM, past AGENTCFG_NAMED_MAX). */
int agentcfg_parse(const char *text, size_t len, int toml,
    const struct agentcfg_where *w, char *const *data,
    struct agentcfg_named *out, sbox_error *err);
/* Release what out owns. */
void agentcfg_named_free(struct agentcfg_named *out);

#endif
