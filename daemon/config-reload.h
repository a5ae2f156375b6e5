/* config-reload.h: load the config file again (SIGHUP, a saved host). */
#ifndef SBOX_CONFIG_RELOAD_H
#define SBOX_CONFIG_RELOAD_H

#include "protocol/error.h"

/* Replace the daemon's config with the file's; -1 with err (old kept). */
int config_reload(const char *why, sbox_error *err);
/* The same; allow_missing: a missing file is the empty config (reset). */
int config_reload_file(const char *why, int allow_missing, sbox_error *err);

#endif
