/* shape.c: the public shape of stored records (one name per concept). */
#include "daemon/shape.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Rename a member of obj (a no-op when absent; `to` is replaced). */
static void
shape_rename(json_t *obj, const char *from, const char *to)
{
	json_t *v = json_object_get(obj, from);

	if (v == NULL)
		return;
	json_object_set(obj, to, v);
	json_object_del(obj, from);
}

/* No signal is null, as in results (the store writes 0). */
static void
shape_signal(json_t *rec)
{
	json_t *v = json_object_get(rec, "signal");

	if (json_is_integer(v) && json_integer_value(v) <= 0)
		json_object_set_new(rec, "signal", json_null());
}

/* A session record: its id as "session". */
void
shape_session(json_t *rec)
{
	json_t *sb = json_object_get(json_object_get(rec, "resolved_profile"),
	    "sandboxed");

	const char *prof = json_string_value(json_object_get(rec, "profile"));

	shape_rename(rec, "id", "session");
	/* every answer that describes a session says whether it is sandboxed
	 * (without the resolved profile: only "none" is not) */
	if (json_object_get(rec, "sandboxed") == NULL)
		json_object_set_new(rec, "sandboxed", json_boolean(sb != NULL ?
		    json_is_true(sb) : prof == NULL || strcmp(prof, "none") != 0));
}

/* A command record: its id as "command". */
void
shape_command(json_t *rec)
{
	shape_rename(rec, "command_id", "command");
	shape_rename(rec, "id", "command");
	shape_rename(rec, "approval_id", "approval");
	shape_signal(rec);
}

/* An approval record: its id as "approval", its command as "command". */
void
shape_approval(json_t *rec)
{
	shape_rename(rec, "id", "approval");
	shape_rename(rec, "command_id", "command");
	shape_signal(rec);
}

/* Apply fn to each record of an array. */
void
shape_each(json_t *array, void (*fn)(json_t *rec))
{
	size_t i;
	json_t *rec;

	json_array_foreach(array, i, rec)
		fn(rec);
}

/* Set "NAME_at" (ISO-8601 UTC, milliseconds) and "NAME_at_ms" on obj. */
void
shape_time(json_t *obj, const char *name, long long ms)
{
	char key[64], iso[40];
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	snprintf(key, sizeof key, "%s_at_ms", name);
	json_object_set_new(obj, key, json_integer(ms));
	snprintf(key, sizeof key, "%s_at", name);
	if (gmtime_r(&secs, &tm) == NULL ||
	    strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return;
	snprintf(iso + strlen(iso), sizeof iso - strlen(iso), ".%03lldZ",
	    ms % 1000);
	json_object_set_new(obj, key, json_string(iso));
}
