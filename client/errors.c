/* errors.c: the one place the CLI turns errors into text and exit codes,
 * and where --json output is written (so stdout holds one JSON document). */
#include "client/client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errors_json;          /* --json was given */
static int errors_json_printed;  /* a JSON document went to stdout */
static const char *errors_cmd;   /* the command being run, for "try ..." */
static const char *errors_sub;

/* Colour for stderr: on a terminal, unless NO_COLOR is set or TERM=dumb. */
static int
errors_colour(void)
{
	static int on = -1;
	const char *term = getenv("TERM");

	if (on == -1)
		on = isatty(2) && getenv("NO_COLOR") == NULL &&
		    (term == NULL || strcmp(term, "dumb") != 0);
	return on;
}

/* The exit code for an error name. */
static int
errors_code(const char *name)
{
	if (strcmp(name, E_UNAVAILABLE) == 0)
		return EXIT_UNAVAILABLE;
	if (strcmp(name, E_DENIED) == 0 || strcmp(name, E_RATE_LIMITED) == 0)
		return EXIT_DENIED;
	return EXIT_FAILED;
}

/* Print "sbox: message" and return the exit code for the error; with
 * --json, stdout also gets {"error": {name, message, field, exit_code}}. */
int
client_fail(const sbox_error *err)
{
	const char *name = err->name[0] ? err->name : E_INTERNAL;
	int code = errors_code(name);
	const char *on = errors_colour() ? "\033[31m" : "";
	const char *off = errors_colour() ? "\033[0m" : "";

	/* a message may quote what a sandbox chose: shown safe (text.c) */
	if (err->field[0] != '\0' && strstr(err->message, err->field) == NULL)
		fprintf(stderr, "%ssbox: %s (%s)%s\n", on, text_show(
		    err->message), text_show(err->field), off);
	else
		fprintf(stderr, "%ssbox: %s%s\n", on, text_show(err->message),
		    off);
	if (errors_json && !errors_json_printed) {
		json_t *e = json_pack("{s:{s:s, s:s, s:s?, s:i}}", "error", "name",
		    name, "message", err->message, "field", err->field[0] ?
		    err->field : NULL, "exit_code", code);
		client_print_json(e);
		json_decref(e);
	}
	return code;
}

/* Name the command being run, for the "try 'sbox help ...'" of usage
 * errors. */
void
client_usage_cmd(const char *cmd, const char *sub)
{
	errors_cmd = cmd;
	errors_sub = sub;
}

/* Print a usage error as one line ("sbox: ...; try 'sbox help CMD'"; with
 * --json, stdout also gets {"error": {name "sbox.Usage", message, field,
 * exit_code 2}}) and return EXIT_USAGE. */
int
client_usage(const char *fmt, ...)
{
	char msg[2048], *nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if ((nl = strchr(msg, '\n')) != NULL)
		*nl = '\0';
	if (errors_cmd != NULL && strstr(msg, "sbox help") == NULL)
		fprintf(stderr, "sbox: %s; try 'sbox help %s%s%s'\n", msg,
		    errors_cmd, errors_sub ? " " : "", errors_sub ? errors_sub : "");
	else
		fprintf(stderr, "sbox: %s\n", msg);
	if (errors_json && !errors_json_printed) {	/* one JSON document */
		json_t *e = json_pack("{s:{s:s, s:s, s:n, s:i}}", "error", "name",
		    "sbox.Usage", "message", msg, "field", "exit_code", EXIT_USAGE);
		client_print_json(e);
		json_decref(e);
	}
	return EXIT_USAGE;
}

/* Print a warning line on stderr ("sbox: warning: ...", yellow on a
 * terminal). */
void
client_warn(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/* a warning may quote what a sandbox chose: shown safe (text.c) */
	fprintf(stderr, "%ssbox: warning: %s%s\n", errors_colour() ?
	    "\033[33m" : "", rc == -1 ? "?" : text_show(msg),
	    errors_colour() ? "\033[0m" : "");
	free(msg);
}

/* Print the "warnings" array of a daemon answer, one line each. */
void
client_print_warnings(const json_t *r)
{
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(r, "warnings"), i, w)
		if (json_is_string(w))
			client_warn("%s", json_string_value(w));
}

/* Say whether --json was given (main sets it once). */
void
client_set_json(int on)
{
	errors_json = on;
}

/* Has a JSON document gone to stdout yet? */
int
client_json_printed(void)
{
	return errors_json_printed;
}

/* Print a JSON value (for --json), pretty, on stdout: once per run. */
void
client_print_json(const json_t *v)
{
	if (errors_json_printed)
		return;
	errors_json_printed = 1;
	json_dumpf(v, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
	fflush(stdout);
}
