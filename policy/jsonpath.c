/* jsonpath.c: formatting the JSON paths named in config errors. */
#include "policy/jsonpath.h"

#include <stdarg.h>
#include <stdio.h>

/* Format a JSON path into buf (truncated quietly if huge). */
void
jsonpath_format(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
