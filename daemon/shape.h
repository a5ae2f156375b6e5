/* shape.h: the public shape of stored records: one name per concept in
 * every answer (see PROTOCOL.md, Conventions). The store keeps its own
 * column names; answers go through these. */
#ifndef SBOX_SHAPE_H
#define SBOX_SHAPE_H

#include <jansson.h>

/* A session record: its id as "session" (not "id"). */
void shape_session(json_t *rec);
/* A command record: its id as "command" (not "id" or "command_id"). */
void shape_command(json_t *rec);
/* An approval record: its id as "approval", its command as "command". */
void shape_approval(json_t *rec);
/* Apply fn to each record of an array. */
void shape_each(json_t *array, void (*fn)(json_t *rec));
/* Set "NAME_at" (ISO-8601 UTC with milliseconds) and "NAME_at_ms" on obj. */
void shape_time(json_t *obj, const char *name, long long ms);

#endif
