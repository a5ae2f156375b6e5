/* exclude.h: a profile's `exclude` patterns, matched against a command line
 * (the top-level argv of command.exec, and every program a command starts
 * inside the sandbox, which sbox-init sees at execve). */
#ifndef SBOX_EXCLUDE_H
#define SBOX_EXCLUDE_H

#include <jansson.h>

#include "protocol/error.h"

/* Most patterns, and the longest command line matched (longer lines are
 * matched on their first EXCLUDE_LINE_MAX bytes). */
#define EXCLUDE_MAX       64
#define EXCLUDE_LINE_MAX  8192

/* Does the command line match one of patterns (NULL-terminated)? argv is
 * the program's arguments; program (or NULL) the file executed. A pattern
 * is a shell glob (fnmatch, no flags: `*` also matches spaces and '/')
 * against the words joined with single spaces, the first word taken both
 * as argv[0] and as the file name (last component) of argv[0] and of
 * program; "WORD *" also matches WORD alone. Returns the pattern, or
 * NULL. */
const char *exclude_match(char *const *patterns, char *const *argv,
    const char *program);
/* The patterns from JSON (absent or null: none); validated. */
int exclude_from_json(char ***out, json_t *a, sbox_error *err);

#endif
