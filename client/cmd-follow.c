/* cmd-follow.c: sbox command follow COMMAND: a command's output (what the
 * daemon kept, then live) until it ends, from any host client; its exit
 * status is sbox's. */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/base64.h"

#define CMD_FOLLOW_JSON_MAX (16u * 1024 * 1024)  /* per stream, --json */

struct cmd_follow {
	long long   command;
	int         json;      /* gather the output for one JSON document */
	char       *buf[2];    /* --json: stdout, stderr */
	size_t      len[2];
	int         truncated;
	struct ttyshow show;   /* what is written to our terminal */
	json_t     *end;       /* the command.exited params */
};

/* Keep a chunk for the JSON document (up to the cap). */
static void
cmd_follow_keep(struct cmd_follow *f, int i, const unsigned char *p, size_t n)
{
	char *nb;

	if (f->len[i] + n > CMD_FOLLOW_JSON_MAX) {
		f->truncated = 1;
		n = CMD_FOLLOW_JSON_MAX - f->len[i];
	}
	if (n == 0 || (nb = realloc(f->buf[i], f->len[i] + n)) == NULL)
		return;
	memcpy(nb + f->len[i], p, n);
	f->buf[i] = nb;
	f->len[i] += n;
}

/* command.output: write it (or keep it); command.exited: stop. */
static int
cmd_follow_notify(const char *method, json_t *params, void *arg)
{
	struct cmd_follow *f = arg;
	const char *stream, *b64;
	unsigned char *raw;
	size_t n;
	int i;

	if (json_integer_value(json_object_get(params, "command")) != f->command)
		return 0;
	if (strcmp(method, "command.exited") == 0) {
		f->end = json_incref(params);
		return 1;
	}
	if (strcmp(method, "command.output") != 0 ||
	    (stream = json_string_value(json_object_get(params, "stream"))) ==
	    NULL || (b64 = json_string_value(json_object_get(params, "data"))) ==
	    NULL || (raw = base64_decode(b64, strlen(b64), &n)) == NULL)
		return 0;
	i = strcmp(stream, "stderr") == 0;
	if (f->json)
		cmd_follow_keep(f, i, raw, n);
	else
		ttyshow_write(&f->show, i, raw, n);
	free(raw);
	return 0;
}

/* The --json document: the end of the command and its output. */
static void
cmd_follow_print_json(struct cmd_follow *f)
{
	static const char *keys[][2] = { { "stdout", "stdout_text" },
	    { "stderr", "stderr_text" } };
	char *b64;
	json_t *t;
	int i;

	for (i = 0; i < 2; i++) {
		b64 = base64_encode(f->buf[i] ? f->buf[i] : "", f->len[i]);
		json_object_set_new(f->end, keys[i][0], json_string(b64 ? b64 : ""));
		free(b64);
		if ((t = json_stringn(f->buf[i] ? f->buf[i] : "", f->len[i])) !=
		    NULL)
			json_object_set_new(f->end, keys[i][1], t);
	}
	json_object_set_new(f->end, "output_truncated",
	    json_boolean(f->truncated));
	client_print_json(f->end);
}

/* sbox command follow COMMAND. */
int
cmd_command_follow(const struct client_opts *o, long long command)
{
	struct cmd_follow f = { .command = command, .json = o->json };
	struct client *cl;
	sbox_error err;
	json_t *r;
	int rc;

	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL)
		return client_fail(&err);
	ttyshow_init(&f.show, !o->json && (isatty(1) || isatty(2)) &&
	    exec_tty_drops(o, cl));
	client_on_notify(cl, cmd_follow_notify, &f);
	r = client_call(cl, "command.follow", json_pack("{s:I}", "command",
	    (json_int_t)command), NULL, 0, &err);
	if (r != NULL) {
		json_decref(r);
		if (f.end == NULL)
			client_wait(cl, &err);
	}
	client_close(cl);
	ttyshow_end(&f.show);
	if (f.end == NULL) {
		free(f.buf[0]);
		free(f.buf[1]);
		if (!error_isset(&err))
			error_set(&err, E_UNAVAILABLE, "sboxd went away before "
			    "command %lld ended", command);
		return client_fail(&err);
	}
	rc = exec_status(f.end);
	if (o->json)
		cmd_follow_print_json(&f);
	json_decref(f.end);
	free(f.buf[0]);
	free(f.buf[1]);
	return rc;
}
