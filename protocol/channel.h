/* channel.h: the one message format and dispatch of sboxd's two private
 * channels (sboxd <-> sbox-init, protocol/ctl.h; sboxd <-> its proxy
 * process, daemon/proxy/proxy-msg.h).
 *
 * A message is one JSON object with a string member "type" (its name) and
 * its fields, sent as one SOCK_SEQPACKET datagram with at most a few
 * descriptors (SCM_RIGHTS). Each side of each channel keeps ONE table of
 * the messages it accepts: a row is the message's name, its handler, the
 * side that may send it, how many descriptors come with it and a spec of
 * its fields. channel_dispatch looks the row up, checks the sender, the
 * descriptors and every field of the spec before the handler runs, and
 * refuses anything else (an unknown name, the wrong sender, a missing or
 * ill-typed field) in this one place, with one reason in err.
 *
 * What comes from sbox-init or the proxy is hostile input (TRUST
 * BOUNDARY): the spec is the first check, the handler's own checks of what
 * only it knows (the request's state, the rule's name) come after. */
#ifndef SBOX_CHANNEL_H
#define SBOX_CHANNEL_H

#include <jansson.h>
#include <stddef.h>

#include "protocol/error.h"

/* The sides of the channels (a row's allowed senders are a mask of them). */
enum channel_side {
	CHANNEL_SBOXD = 1 << 0,
	CHANNEL_INIT  = 1 << 1,
	CHANNEL_PROXY = 1 << 2
};

/* What a field must be. */
enum channel_kind {
	CHANNEL_INT,     /* an integer in [min, max] */
	CHANNEL_STR,     /* a string without NUL of min to max bytes */
	CHANNEL_PATH,    /* a STR that starts with '/' */
	CHANNEL_BOOL,    /* true or false */
	CHANNEL_OBJECT,  /* an object (its members are the handler's) */
	CHANNEL_ARRAY,   /* an array of min to max entries */
	CHANNEL_STRV     /* an array of min to max strings without NUL */
};

/* Flags of a field. */
#define CHANNEL_OPTIONAL 0x1  /* may be absent (present: checked) */
#define CHANNEL_NULLABLE 0x2  /* null is accepted too */

/* One field of a message. */
struct channel_field {
	const char        *name;    /* NULL ends a spec */
	enum channel_kind  kind;
	unsigned           flags;
	long long          min, max;
};

/* A handler: 0 when the message was taken, -1 when it may not be (err may
 * say why; else the channel says the message was refused). Descriptors it
 * keeps are set to -1 in fds; the caller closes the rest. */
typedef int (*channel_handler)(void *ctx, json_t *msg, int *fds, int nfds,
    sbox_error *err);

/* One message a side accepts. */
struct channel_row {
	const char                 *name;
	channel_handler             handler;
	unsigned                    from;     /* mask of enum channel_side */
	int                         min_fds, max_fds;
	const struct channel_field *fields;   /* NULL: no field checked */
};

/* One side's table of what it receives. */
struct channel_table {
	const char               *name;   /* "sboxd from sbox-init", for errors */
	const struct channel_row *rows;
	size_t                    n_rows;
};

/* The row of a message name in t, or NULL. */
const struct channel_row *channel_row(const struct channel_table *t,
    const char *name);
/* Check msg's fields against a spec: 0, or -1 with err naming the field. */
int channel_check(const struct channel_field *spec, json_t *msg,
    sbox_error *err);
/* Dispatch one message that side `from` sent, with nfds descriptors, to
 * its row's handler (ctx passed on): the handler's 0, or -1 with err
 * (E_INVALID_REQUEST) for a message that is not an object with a "type",
 * one t has no row for, one from a side the row does not name, the wrong
 * number of descriptors, a field that fails the spec, or one the handler
 * refused. The descriptors stay the caller's to close (-1 where taken). */
int channel_dispatch(const struct channel_table *t, unsigned from, void *ctx,
    json_t *msg, int *fds, int nfds, sbox_error *err);
/* The "type" of a message, or "" when it has none. */
const char *channel_type(const json_t *msg);

#endif
