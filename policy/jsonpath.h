/* jsonpath.h: JSON paths ("sandbox.profiles.company.hosts[1]") named in
 * config errors. */
#ifndef SBOX_JSONPATH_H
#define SBOX_JSONPATH_H

#include <stddef.h>

/* Format a JSON path into buf (truncated quietly if huge). */
void jsonpath_format(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
