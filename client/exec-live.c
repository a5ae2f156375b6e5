/* exec-live.c: what the sandbox refuses while a command runs on a terminal
 * of its sandbox (`sbox session shell`, `session exec -t`), shown when it
 * happens. sboxd sends each new entry of the command's blocked lists as a
 * command.blocked notification; the relay prints it at once on our stderr
 * as a line of its own ("\r\n": our terminal is raw), starting a new line
 * first when sboxd says the command's output stopped in the middle of one,
 * and the entries shown live are not printed again when the command ends. */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *exec_live_info;     /* the session record (explanations) */
static int exec_live_one_shot;
static json_t *exec_live_shown;    /* [{kind: entry}] shown live */

/* Explain the refusals of the next command with this session record
 * (borrowed while it runs; one_shot: the session closes after it). */
void
exec_live_set(const json_t *info, int one_shot)
{
	json_decref(exec_live_info);
	exec_live_info = info != NULL ? json_deep_copy(info) : NULL;
	exec_live_one_shot = one_shot;
}

/* Write all of buf to stderr (a terminal: one write is one line). */
static void
exec_live_write(const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(2, buf, len);
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* A command.blocked notification: print each entry on a line of its own,
 * and remember it. */
void
exec_live_blocked(const json_t *params)
{
	static const char *kinds[] = { "files", "hosts", "unreachable" };
	json_t *copy = json_deep_copy(params), *v, *raw;
	int line_start = !json_is_false(json_object_get(params, "line_start"));
	const char *ex;
	char *line;
	size_t k, i;

	if (copy == NULL)
		return;
	if (exec_live_shown == NULL)
		exec_live_shown = json_array();
	exec_explain_blocked(copy, exec_live_info, exec_live_one_shot);
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		json_array_foreach(json_object_get(json_object_get(copy,
		    "blocked"), kinds[k]), i, v) {
			raw = json_array_get(json_object_get(json_object_get(
			    params, "blocked"), kinds[k]), i);
			if ((ex = json_string_value(json_object_get(v,
			    "explanation"))) == NULL)
				continue;
			if (asprintf(&line, "%ssbox: blocked: %s\r\n", line_start ?
			    "" : "\r\n", ex) == -1)
				continue;
			exec_live_write(line, strlen(line));
			free(line);
			line_start = 1;
			json_array_append_new(exec_live_shown, json_pack("{s:O}",
			    kinds[k], raw));
		}
	}
	json_decref(copy);
}

/* The command ended (result r, or NULL): mark the entries of its blocked
 * lists that were shown live ("shown": true, which exec_print_blocked
 * skips) and forget them. */
void
exec_live_mark(json_t *r)
{
	json_t *shown, *v, *e;
	const char *kind;
	size_t i, j;

	json_array_foreach(exec_live_shown, i, shown) {
		json_object_foreach(shown, kind, e) {
			json_array_foreach(json_object_get(json_object_get(r,
			    "blocked"), kind), j, v) {
				if (json_equal(v, e)) {
					json_object_set_new(v, "shown",
					    json_true());
					break;
				}
			}
		}
	}
	json_decref(exec_live_shown);
	exec_live_shown = NULL;
}
