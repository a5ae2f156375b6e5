/* toolconf.h: the registry hosts of network "registries" as this computer's
 * tools see them: the user's tool configuration and the defaults file
 * (policy/registries.h), plus what npm and Yarn themselves answer for their
 * registry (asked once, in the background, when sboxd starts). */
#ifndef SBOX_TOOLCONF_H
#define SBOX_TOOLCONF_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "protocol/error.h"

/* How a tool is run on the host (command/hostexec.c's hostexec_spawn,
 * named by main.c: command/ is above this room). */
typedef int (*toolconf_spawn_fn)(char *const *argv, char *const *env,
    const char *cwd, const int fds[3],
    void (*cb)(pid_t pid, int code, int sig, void *arg), void *arg,
    pid_t *pid_out, sbox_error *err);
/* Ask npm and Yarn (when on PATH) for their registry, without blocking,
 * running them with spawn. */
void toolconf_start(toolconf_spawn_fn spawn);
/* Stop the questions still open (daemon shutdown). */
void toolconf_stop(void);
/* The defaults file sboxd uses when neither $SBOX_REGISTRIES_FILE nor
 * /etc/sbox/registries exists: PREFIX/share/sbox/registries beside the
 * installed sboxd, or policy/registries.default in a build tree. */
const char *toolconf_defaults_file(void);
/* tail ("../libexec/...") beside sboxd's own folder, normalised (malloc'd). */
char *toolconf_beside_path(const char *tail);
/* The shipped protected-names file (PREFIX/share/sbox/protected beside
 * the installed sboxd, or policy/protected.default in a build tree), for
 * guard_table_file's last choice; NULL when there is none. */
const char *toolconf_protected_file(void);
/* The shipped built-in providers file (PREFIX/share/sbox/providers beside
 * the installed sboxd, or policy/providers.default in a build tree), for
 * providers_set_fallback; NULL when there is none. */
const char *toolconf_providers_file(void);
/* Every registry host for a client (home and env as registries_collect):
 * a new NULL-terminated list, or -1 with err. */
int toolconf_registries(const char *home, char *const *env, char ***out,
    sbox_error *err);

/* Where each registry host of toolconf_registries(home, env) comes from:
 * a new array [{host, source}]. */
json_t *toolconf_sources_json(const char *home, char *const *env);

/* toolconf-find.c: every installed copy of tool (sboxd's PATH, then nvm,
 * volta and fnm folders in home, ~/.local/bin, ~/.yarn/bin, /usr/local/bin,
 * /usr/bin), absolute paths, NULL-terminated; NULL when none. */
char **toolconf_find(const char *tool, const char *home);
/* npm's registry from its own files (PREFIX/etc/npmrc, its built-in npmrc,
 * its built-in default): 0 with host and the file in source, else -1. */
int toolconf_find_npm_default(const char *npm, char *host, size_t len,
    char *source, size_t slen);

/* Yarn's registry (reg) and the host of Yarn's releases (rel, "" when
 * none) as corepack's bundled configuration names them: 0 with the file
 * in source, or -1. Read from corepack's files; nothing is run. */
int toolconf_find_corepack_yarn(const char *corepack, char *reg, size_t rlen,
    char *rel, size_t relen, char *source, size_t slen);
/* Yarn's registry as a Yarn installed by corepack (in COREPACK_HOME or
 * ~/.cache/node/corepack) says in its own files: 0 with host and the file
 * in source, or -1. */
int toolconf_find_yarn_cached(const char *home, char *host, size_t len,
    char *source, size_t slen);

#endif
