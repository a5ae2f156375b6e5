/* hostenv.h: the environment of a command run outside the sandbox. It is the
 * person's own (sboxd's environment), plus only the variables the request
 * names that are on a short allow list of names that cannot name a file or
 * a program nor change what a program loads (locale: LANG, LANGUAGE, LC_*;
 * TERM, COLORTERM, COLUMNS, LINES, TZ, NO_COLOR, FORCE_COLOR, CLICOLOR,
 * CLICOLOR_FORCE, CI, SOURCE_DATE_EPOCH; the table is in hostenv.c), each
 * with a plain value (no '/' but inside a zone name, at most 128 bytes).
 * Every other name is dropped. What was added (with its value) and what
 * was dropped is shown to the person and recorded. */
#ifndef SBOX_HOSTENV_H
#define SBOX_HOSTENV_H

#include <jansson.h>

#include "protocol/error.h"

/* Most variables one request may name, and the longest value. */
#define HOSTENV_MAX_VARS  128
#define HOSTENV_MAX_VALUE 32768

/* NULL when a request may add the variable name to a run outside (it is
 * on the allow list), else the reason it may not (a static string). */
const char *hostenv_refused(const char *name);
/* The same for name with a value of len bytes (the value must be plain
 * for its name: a locale, a number, a zone name). */
const char *hostenv_refused_value(const char *name, const char *value,
    size_t len);
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
