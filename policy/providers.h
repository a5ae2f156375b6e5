/* providers.h: the built-in providers (policy/providers.default): the coding
 * agents sbox knows, each with its hosts, account folders, the env names of
 * its keys and the files of its account folders that run programs later.
 *
 * The file is data the installer and the user control, like the registries
 * file: $SBOX_PROVIDERS_FILE (it must then exist), else
 * /etc/sbox/providers, else the fallback set by providers_set_fallback
 * (sboxd: PREFIX/share/sbox/providers beside it, or the build tree's
 * policy/providers.default). config_load merges them into the config's
 * "providers": a config entry of the same name extends the built-in one. */
#ifndef SBOX_PROVIDERS_H
#define SBOX_PROVIDERS_H

#include "policy/config.h"
#include "protocol/error.h"

#define PROVIDERS_SYSTEM_FILE "/etc/sbox/providers"

/* Remember the last choice of providers_file (copied; NULL forgets it). */
void providers_set_fallback(const char *path);
/* The built-in providers file to read, or NULL when none exists. */
const char *providers_file(void);
/* Read a providers file into a new table of bindings *out[*n] (each with
 * builtin set; "~" expanded with home). E_CONFIG naming file and line. */
int providers_read(const char *path, const char *home,
    struct config_binding **out, size_t *n, sbox_error *err);
/* Merge the built-in providers of providers_file() into cfg (an entry of
 * the config with the same name extends the built-in one). */
int providers_merge(struct config *cfg, sbox_error *err);

#endif
