/* session-agentcfg.h: what the person's agents' settings name (the
 * settings files every provider of the config lists, in the home and in
 * the project), read by sboxd on the host and parsed by policy/agentcfg.c.
 * A session keeps every named path inside its writable folders read-only
 * and missing-proof (as git config's, plan_git_named), and reads the
 * files again when one of them changes (their stat identities). */
#ifndef SBOX_SESSION_AGENTCFG_H
#define SBOX_SESSION_AGENTCFG_H

#include <jansson.h>
#include <stddef.h>

#include "daemon/session/gitcfg-watch.h"
#include "policy/agentcfg.h"
#include "protocol/error.h"

struct config;

/* One read of the settings files. */
struct session_agentcfg {
	struct agentcfg_named  named;   /* the paths, each with its setting */
	unsigned char         *kinds;   /* per path: 0 absent, 1 file,
	                                   2 folder, 3 something else */
	struct gitcfg_ident   *watch;   /* the settings files, present or not */
	size_t                 n_watch;
};

/* Read the settings files of every provider of cfg (home: the person's
 * home folder; project: the session's, or NULL). A file that cannot be
 * read as a file (a FIFO, a folder, too large) is an error: the session
 * must not start unprotected. 0, or -1 with err. */
int session_agentcfg_scan(const struct config *cfg, const char *home,
    const char *project, struct session_agentcfg *out, sbox_error *err);
/* Has one of the files changed since the scan? */
int session_agentcfg_changed(const struct session_agentcfg *a);
/* Release what a owns. */
void session_agentcfg_free(struct session_agentcfg *a);
/* The named paths as [{path, setting}] (for `sandbox show`). */
json_t *session_agentcfg_json(const struct session_agentcfg *a);

#endif
