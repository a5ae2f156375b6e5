/* hostenv.h: the environment of a command run outside the sandbox. It is the
 * person's own (sboxd's environment), plus only the variables the request
 * names that cannot change which program runs or what it loads: never
 * LD_*, PATH, GIT_*, BASH_ENV, ENV, PYTHON*, NODE_OPTIONS, *_OPTIONS, HOME,
 * proxies, certificate stores and the like (the full table is in
 * hostenv.c), nor a name that is not [A-Za-z_][A-Za-z0-9_]*. What was
 * added and what was dropped is shown to the person and recorded. */
#ifndef SBOX_HOSTENV_H
#define SBOX_HOSTENV_H

#include <jansson.h>

#include "protocol/error.h"

/* Most variables one request may name, and the longest value. */
#define HOSTENV_MAX_VARS  128
#define HOSTENV_MAX_VALUE 32768

/* NULL when a request may add the variable name to a run outside, else the
 * reason it may not (a static string, e.g. "loads libraries"). */
const char *hostenv_refused(const char *name);
/* Split a request's env ({NAME: VALUE}, NULL ok) into *added (an object of
 * the safe ones) and *dropped (an array of the refused names, sorted). A
 * value that is not a string, too many variables or too long a value is
 * E_INVALID_PARAMS (field "env"). */
int hostenv_filter(json_t *env, json_t **added, json_t **dropped,
    sbox_error *err);
/* The whole environment of a run outside: base (sboxd's environ; NULL = an
 * empty one) without the variables of sboxd's own service manager, PWD
 * set to pwd, then added on top. NULL-terminated, malloc'd (strv_free). */
char **hostenv_build(char *const *base, json_t *added, const char *pwd,
    sbox_error *err);

#endif
