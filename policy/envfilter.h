/* envfilter.h: what a sandbox's environment holds.
 *
 * A sandbox gets a clean set built from the client's environment: PATH, LANG,
 * LANGUAGE, LC_*, TERM, COLORTERM, TZ, plus HOME (the real home path), USER
 * and LOGNAME (the user), TMPDIR=/tmp; then every variable the profile names
 * (`env`, exact names or "PREFIX*"), with the client's values, even when it
 * looks like a secret; then the provider's values (`env_values`), which win.
 * Everything else is dropped. The proxy variables are added by the daemon.
 *
 * Secret-looking names (envfilter_is_secret) are also dropped from any
 * per-command environment a client passes, unless the profile names them. */
#ifndef SBOX_ENVFILTER_H
#define SBOX_ENVFILTER_H

#include "policy/profile.h"
#include "protocol/error.h"

/* True when the variable name looks like it holds a secret: *_API_KEY,
 * *_KEY, *_TOKEN, *_SECRET*, *PASSWORD*, *_PASSWD, *_PASS, *_PASSPHRASE,
 * *_CREDENTIALS, *_CREDENTIAL, *_PAT, *_AUTH, *_COOKIE, *_DSN,
 * *DATABASE_URL, AWS_*, AZURE_*, SSH_AUTH_SOCK, SSH_AGENT_PID,
 * GPG_AGENT_INFO, DBUS_SESSION_BUS_ADDRESS, KRB5CCNAME, ... (case-insensitive). */
int envfilter_is_secret(const char *name);
/* True when name is in names (exact, or a "PREFIX*" entry). */
int envfilter_named(char *const *names, const char *name);
/* True when s is a valid profile env entry: [A-Za-z_][A-Za-z0-9_]* with an
 * optional trailing '*'. */
int envfilter_name_valid(const char *s);
/* The sandbox environment for profile p (see above), NULL-terminated
 * "NAME=VALUE"; home and user may be NULL (then taken from client_env). */
char **envfilter_apply(char *const *client_env, const struct profile *p,
    const char *home, const char *user, sbox_error *err);
/* A copy of a per-command environment with secret-looking variables that the
 * profile does not name removed (entries without '=' are dropped too). */
char **envfilter_command(char *const *env, const struct profile *p,
    sbox_error *err);

#endif
