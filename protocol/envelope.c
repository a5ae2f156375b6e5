/* envelope.c: JSON-RPC 2.0 request parsing and reply building. */
#include "envelope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is this an id sboxd accepts (a string or an integer)? JSON-RPC 2.0 allows
 * null but says it SHOULD NOT be used: a reply to it could not be told from
 * the reply to a line without a usable id, so it is refused. */
static int
envelope_valid_id(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

/* Load one line of JSON, turning jansson's complaint into a parse error. */
static json_t *
envelope_load(const char *line, size_t len, sbox_error *err)
{
	json_error_t je;
	json_t *root;

	root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (root == NULL) {
		if (json_error_code(&je) == json_error_invalid_utf8)
			error_set(err, E_PARSE, "invalid UTF-8 in request");
		else
			error_set(err, E_PARSE, "invalid JSON: %s (column %d)",
			    je.text, je.column);
		return NULL;
	}
	return root;
}

/* Check one request object (a line, or an element of a batch); takes the
 * reference to v. */
int
envelope_parse_value(json_t *v, struct envelope *env, sbox_error *err)
{
	const char *key;
	json_t *jv;

	memset(env, 0, sizeof *env);
	env->root = v;
	if (json_is_array(env->root))
		return error_set(err, E_INVALID_REQUEST,
		    "a batch must hold request objects, not arrays");
	if (!json_is_object(env->root))
		return error_set(err, E_INVALID_REQUEST,
		    "a request must be a JSON object");
	v = json_object_get(env->root, "id");
	if (v != NULL) {
		if (json_is_null(v))
			return error_set_field(err, E_INVALID_REQUEST, "id",
			    "id must not be null: use a string or an integer, "
			    "or leave id out for a notification");
		if (!envelope_valid_id(v))
			return error_set_field(err, E_INVALID_REQUEST, "id",
			    "id must be a string or an integer");
		env->id = v;
	}
	jv = json_object_get(env->root, "jsonrpc");
	if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0") != 0)
		return error_set_field(err, E_INVALID_REQUEST, "jsonrpc",
		    "jsonrpc must be \"2.0\"");
	v = json_object_get(env->root, "method");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return error_set_field(err, E_INVALID_REQUEST, "method",
		    "method must be a non-empty string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return error_set_field(err, E_INVALID_REQUEST, "method",
		    "method must not contain NUL");
	env->method = json_string_value(v);
	v = json_object_get(env->root, "params");
	if (v != NULL && !json_is_null(v)) {
		/* JSON-RPC: params is a structured value (else the request is
		 * invalid); sboxd's methods take them by name (an array is a
		 * mismatch of the method's parameters) */
		if (json_is_array(v))
			return error_set_field(err, E_INVALID_PARAMS, "params",
			    "params must be an object (by-name parameters)");
		if (!json_is_object(v))
			return error_set_field(err, E_INVALID_REQUEST, "params",
			    "params must be an object or an array");
		env->params = v;
	}
	json_object_foreach(env->root, key, v) {
		if (strcmp(key, "jsonrpc") != 0 && strcmp(key, "id") != 0 &&
		    strcmp(key, "method") != 0 && strcmp(key, "params") != 0)
			return error_set_field(err, E_INVALID_REQUEST, key,
			    "unknown member \"%s\" in request", key);
	}
	return 0;
}

/* Parse one request or notification line. A batch (an array) is an error
 * here with env->root holding the array: the caller handles batches. */
int
envelope_parse(const char *line, size_t len, struct envelope *env,
    sbox_error *err)
{
	json_t *root;

	memset(env, 0, sizeof *env);
	if ((root = envelope_load(line, len, err)) == NULL)
		return -1;
	if (json_is_array(root)) {
		env->root = root;
		return error_set(err, E_INVALID_REQUEST, "a batch");
	}
	return envelope_parse_value(root, env, err);
}

/* Parse one line a client receives: a response or a notification. */
int
envelope_parse_reply(const char *line, size_t len, struct envelope *env,
    sbox_error *err)
{
	json_t *v;

	memset(env, 0, sizeof *env);
	if ((env->root = envelope_load(line, len, err)) == NULL)
		return -1;
	if (!json_is_object(env->root))
		return error_set(err, E_INVALID_REQUEST, "reply is not an object");
	v = json_object_get(env->root, "jsonrpc");
	if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
		return error_set(err, E_INVALID_REQUEST, "reply is not JSON-RPC 2.0");
	env->id = json_object_get(env->root, "id");
	v = json_object_get(env->root, "method");
	if (json_is_string(v)) {
		env->method = json_string_value(v);
		env->params = json_object_get(env->root, "params");
		return 0;
	}
	env->result = json_object_get(env->root, "result");
	env->error = json_object_get(env->root, "error");
	if ((env->result == NULL) == (env->error == NULL))
		return error_set(err, E_INVALID_REQUEST,
		    "reply has neither or both of result and error");
	return 0;
}

/* Release a parsed envelope. */
void
envelope_free(struct envelope *env)
{
	json_decref(env->root);
	memset(env, 0, sizeof *env);
}

/* {"jsonrpc":"2.0","id":id,"result":result}; steals result. */
json_t *
envelope_result(json_t *id, json_t *result)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0",
	    "id", id ? id : json_null(), "result", result ? result : json_null());
}

/* A JSON string of text; when text is not valid UTF-8 (a message quoting
 * the client's bytes, or one cut short inside a character), every non-ASCII
 * byte becomes '?', so an error reply can always be built. */
static json_t *
envelope_text(const char *text)
{
	json_t *j;
	char *copy, *p;

	if ((j = json_string(text)) != NULL)
		return j;
	if ((copy = strdup(text)) == NULL)
		return NULL;
	for (p = copy; *p != '\0'; p++) {
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	}
	j = json_string(copy);
	free(copy);
	return j;
}

/* {"jsonrpc":"2.0","id":id,"error":{code,message,data}}. */
json_t *
envelope_error(json_t *id, const sbox_error *err)
{
	json_t *data;

	data = json_pack("{s:o}", "name",
	    envelope_text(err->name[0] ? err->name : E_INTERNAL));
	if (data != NULL && err->field[0] != '\0')
		json_object_set_new(data, "field", envelope_text(err->field));
	return json_pack("{s:s, s:O, s:{s:i, s:o, s:o}}", "jsonrpc", "2.0",
	    "id", id ? id : json_null(), "error",
	    "code", err->code ? err->code : error_code_for(err->name),
	    "message", envelope_text(err->message[0] ? err->message :
	    "unknown error"), "data", data);
}

/* {"jsonrpc":"2.0","method":m,"params":p}; steals params. */
json_t *
envelope_notification(const char *method, json_t *params)
{
	return json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method,
	    "params", params ? params : json_object());
}

/* {"jsonrpc":"2.0","id":id,"method":m,"params":p}; steals params. */
json_t *
envelope_request(json_int_t id, const char *method, json_t *params)
{
	return json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", id,
	    "method", method, "params", params ? params : json_object());
}

/* Fill err from a reply's error object. */
void
envelope_error_decode(const json_t *error, sbox_error *err)
{
	const char *msg = NULL, *name = NULL, *field = NULL;
	json_int_t code = 0;

	json_unpack((json_t *)error, "{s?I, s?s, s?{s?s, s?s}}", "code", &code,
	    "message", &msg, "data", "name", &name, "field", &field);
	error_set(err, name ? name : E_INTERNAL, "%s", msg ? msg : "unknown error");
	if (code != 0)
		err->code = (int)code;
	if (field != NULL)
		snprintf(err->field, sizeof err->field, "%s", field);
}

/* Serialise compactly with a trailing LF; caller frees. */
char *
envelope_dump(const json_t *msg, size_t *len)
{
	char *s, *out;
	size_t n;

	s = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (s == NULL)
		return NULL;
	n = strlen(s);
	out = realloc(s, n + 2);
	if (out == NULL) {
		free(s);
		return NULL;
	}
	out[n] = '\n';
	out[n + 1] = '\0';
	if (len)
		*len = n + 1;
	return out;
}
