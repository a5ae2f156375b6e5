/* sandbox-check.h: sandbox.check, a throwaway session that shows, step by
 * step, what a profile's sandbox reaches and what stays out of reach (like
 * CodeAlta's Check): bwrap present, user namespaces usable, the developer
 * tools run, a write in a test project works, a write and a read outside it
 * are refused, sbox's own files and the user's credentials are out of reach,
 * and the proxy answers and refuses a host outside the allowlist.
 *
 * The session's project is a fresh folder under $TMPDIR (or /tmp), never
 * under the daemon's state folder (hidden from every sandbox); it is removed
 * with the session when the check ends. */
#ifndef SBOX_SANDBOX_CHECK_H
#define SBOX_SANDBOX_CHECK_H

#include <jansson.h>
#include <stddef.h>

#include "protocol/error.h"

struct rpc_call;

/* The bwrap binary sessions use (sboxd's --bwrap, else "bwrap" in PATH),
 * written to buf; -1 when it is not there. */
int sandbox_check_bwrap(char *buf, size_t len);

/* Run the check for profile `profile` (a sandboxed profile that exists).
 * Answers call later (RPC_LATER) with {profile, ok, steps: [{step, ok,
 * detail}]}, or at once (0 and *result) when the sandbox could not even be
 * started; -1 with err for a setup failure of the daemon itself. */
int sandbox_check_start(const char *profile, struct rpc_call *call,
    json_t **result, sbox_error *err);
/* The same for a session of provider (NULL: none): its hosts and its home
 * folder are checked too (sandbox-check-provider.c). */
int sandbox_check_start_provider(const char *profile, const char *provider,
    struct rpc_call *call, json_t **result, sbox_error *err);

/* sandbox-check-provider.c: the check script with provider's steps added
 * (malloc'd; NULL when provider is not in the config), and the parser of
 * their "PSTEP" lines into steps. */
char *sandbox_check_provider_script(const char *script, const char *provider);
void sandbox_check_provider_parse(json_t *steps, const char *out);
/* Add what was left out of the provider's home to its provider_home step. */
void sandbox_check_provider_aside(json_t *steps, const char *provider);

#endif
