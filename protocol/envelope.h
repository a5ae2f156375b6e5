/* envelope.h: the JSON-RPC 2.0 envelope: parse requests, build replies. */
#ifndef SBOX_ENVELOPE_H
#define SBOX_ENVELOPE_H

#include <jansson.h>
#include <stddef.h>
#include "error.h"

#define PROTOCOL_VERSION 1

/* A parsed incoming message. Borrowed pointers live as long as root. */
struct envelope {
	json_t     *root;    /* the whole message (owned) */
	json_t     *id;      /* borrowed; NULL for a notification */
	const char *method;  /* borrowed; NULL for a response */
	json_t     *params;  /* borrowed; NULL when absent */
	json_t     *result;  /* responses: borrowed result, or NULL */
	json_t     *error;   /* responses: borrowed error object, or NULL */
};

/* Parse one request or notification line. On error, env->id is still set when
 * the id could be read, so the error reply can carry it. A batch (a JSON
 * array) is an E_INVALID_REQUEST error with env->root the array. */
int envelope_parse(const char *line, size_t len, struct envelope *env,
    sbox_error *err);
/* Check one request object (an element of a batch); takes the reference. */
int envelope_parse_value(json_t *v, struct envelope *env, sbox_error *err);
/* Parse one line a client receives: a response or a notification. */
int envelope_parse_reply(const char *line, size_t len, struct envelope *env,
    sbox_error *err);
/* Release a parsed envelope. */
void envelope_free(struct envelope *env);
/* {"jsonrpc":"2.0","id":id,"result":result}; steals result. */
json_t *envelope_result(json_t *id, json_t *result);
/* {"jsonrpc":"2.0","id":id,"error":{code,message,data:{name,field}}}. */
json_t *envelope_error(json_t *id, const sbox_error *err);
/* {"jsonrpc":"2.0","method":m,"params":p}; steals params (may be NULL). */
json_t *envelope_notification(const char *method, json_t *params);
/* {"jsonrpc":"2.0","id":id,"method":m,"params":p}; steals params. */
json_t *envelope_request(json_int_t id, const char *method, json_t *params);
/* Fill err from a reply's error object. */
void envelope_error_decode(const json_t *error, sbox_error *err);
/* Serialise compactly with a trailing LF; caller frees. NULL on failure. */
char *envelope_dump(const json_t *msg, size_t *len);

#endif
