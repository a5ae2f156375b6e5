/* outside-text.c: the text helpers that show what an agent wrote (a
 * reason, a host, argv as a shell-like line, exactly what a run outside
 * runs) without letting it drive the terminal, and a store time as local
 * time. Used by the commands, the questions (ask.c) and the explanations
 * of refusals (exec.c). */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Append n bytes to a growing string; -1 on ENOMEM. */
static int
outside_text_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap + n + 1) * 2;
		char *nb = realloc(*buf, ncap);
		if (nb == NULL)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* Append s made safe to print (client/text.c). */
static int
outside_text_put_clean(char **buf, size_t *len, size_t *cap, const char *s)
{
	char *t = text_safe(s);
	int rc = outside_text_put(buf, len, cap, t, strlen(t));

	free(t);
	return rc;
}

/* A string with control and direction-changing characters escaped. */
char *
outside_text_escape(const char *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (outside_text_put(&buf, &len, &cap, "", 0) == -1 ||
	    outside_text_put_clean(&buf, &len, &cap, s != NULL ? s :
	    "") == -1) {
		free(buf);
		return strdup("?");
	}
	return buf;
}

/* Does an argument need quotes to read as one word? */
static int
outside_text_needs_quotes(const char *a)
{
	if (*a == '\0')
		return 1;
	for (; *a != '\0'; a++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_@%+=:,./-", *a) == NULL &&
		    !((unsigned char)*a & 0x80))
			return 1;
	}
	return 0;
}

/* argv as one shell-like line (quoted where needed). */
char *
outside_text_argv(const json_t *argv)
{
	char *buf = NULL, *t;
	size_t len = 0, cap = 0, i, n;
	const char *a, *q;
	json_t *v;
	int rc = outside_text_put(&buf, &len, &cap, "", 0);

	json_array_foreach(argv, i, v) {
		a = json_string_value(v) ? json_string_value(v) : "";
		if (i > 0)
			rc |= outside_text_put(&buf, &len, &cap, " ", 1);
		if (!outside_text_needs_quotes(a)) {
			rc |= outside_text_put_clean(&buf, &len, &cap, a);
			continue;
		}
		rc |= outside_text_put(&buf, &len, &cap, "'", 1);
		for (q = a; *q != '\0'; q += n) {
			if (*q == '\'') {
				rc |= outside_text_put(&buf, &len, &cap, "'\\''", 4);
				n = 1;
				continue;
			}
			/* up to the next quote, made safe as a whole */
			n = strcspn(q, "'");
			if ((t = text_safen(q, n)) == NULL)
				rc = -1;
			else
				rc |= outside_text_put(&buf, &len, &cap, t, strlen(t));
			free(t);
		}
		rc |= outside_text_put(&buf, &len, &cap, "'", 1);
	}
	if (rc != 0) {
		free(buf);
		return strdup("?");
	}
	return buf;
}

/* Print exactly what a run-outside request runs (an approval.requested
 * event or a request record), each line after indent: the command line,
 * the absolute program (marked when the sandbox could have written it),
 * the folder (marked when the sandbox can write it: programs that read
 * their settings from it run what the sandbox wrote), every variable added
 * and every name dropped. */
void
outside_text_print_what(const json_t *req, const char *indent)
{
	const char *program = json_string_value(json_object_get(req,
	    "program"));
	json_t *env = json_object_get(req, "env"), *v, *one;
	const char *k;
	char *t, *names = NULL;
	size_t i, len = 0, cap = 0;

	/* What the request wrote (argv, values: maybe long) first; the
	 * facts sboxd fixed last, next to the question. */
	t = outside_text_argv(json_object_get(req, "argv"));
	printf("%s%s\n", indent, t);
	free(t);
	json_object_foreach(env, k, v) {
		one = json_array();
		json_array_append_new(one, json_sprintf("%s=%s", k,
		    json_string_value(v) ? json_string_value(v) : ""));
		t = outside_text_argv(one);
		printf("%s  adds %s\n", indent, t);
		free(t);
		json_decref(one);
	}
	if (program != NULL) {
		t = outside_text_escape(program);
		printf("%s  runs %s\n", indent, t);
		if (json_is_true(json_object_get(req, "program_writable")))
			printf("%s  !! written by the sandbox: %s lies in a "
			    "folder the sandbox can write\n", indent, t);
		free(t);
	}
	t = outside_text_escape(json_string_value(json_object_get(req, "cwd")));
	printf("%s  in %s%s\n", indent, t, json_is_true(json_object_get(req,
	    "cwd_writable")) ? "  (the sandbox can write this folder)" : "");
	free(t);
	json_array_foreach(json_object_get(req, "env_dropped"), i, v) {
		char name[68];
		/* Dropped names are not passed: a long one is shown cut. */
		snprintf(name, sizeof name, "%.64s%s", json_string_value(v) ?
		    json_string_value(v) : "?", json_string_length(v) > 64 ?
		    "..." : "");
		if (len > 0)
			outside_text_put(&names, &len, &cap, ", ", 2);
		outside_text_put_clean(&names, &len, &cap, name);
	}
	if (len > 0)
		printf("%s  drops %s (not passed: they could change what runs)\n",
		    indent, names);
	free(names);
}

/* A store time (NAME_at_ms of a record) as local "YYYY-MM-DD HH:MM:SS". */
void
outside_text_time(const json_t *rec, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(rec, key);
	time_t t;
	struct tm tm;

	if (!json_is_integer(v)) {
		snprintf(buf, len, "%-19s", "-");
		return;
	}
	t = (time_t)(json_integer_value(v) / 1000);
	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}
