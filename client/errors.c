/* errors.c: the one place the CLI turns errors into text and exit codes. */
#include "client/client.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Print "sbox: message" and return the exit code for the error. */
int
client_fail(const sbox_error *err)
{
	const char *name = err->name[0] ? err->name : E_INTERNAL;

	if (err->field[0] != '\0' && strstr(err->message, err->field) == NULL)
		fprintf(stderr, "sbox: %s (%s)\n", err->message, err->field);
	else
		fprintf(stderr, "sbox: %s\n", err->message);
	if (strcmp(name, E_UNAVAILABLE) == 0)
		return EXIT_UNAVAILABLE;
	if (strcmp(name, E_DENIED) == 0)
		return EXIT_DENIED;
	return EXIT_FAILED;
}

/* Print a usage error for a command and return EXIT_USAGE. */
int
client_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("sbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return EXIT_USAGE;
}

/* Print a JSON value (for --json), pretty, on stdout. */
void
client_print_json(const json_t *v)
{
	json_dumpf(v, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
	fflush(stdout);
}
