/* session-recover.c: what a previous run of sboxd left behind. Each
 * session has a note (<state>/sessions/ID.json, written before its scratch
 * folder is made) naming what sboxd made for it; a start removes what the
 * notes of no live session name, and marks the store's live rows of the
 * previous run as ended by a crash. A recovery that fails (a locked or
 * full store) is retried from store-watch.c. Also here: writing the live
 * state into a re-created database: the live sessions (their commands:
 * command/command-store.c, through session_hooks). */
#include "daemon/session/session.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/container/container.h"
#include "daemon/log.h"
#include "daemon/container/rmtree.h"
#include "daemon/sboxd.h"
#include "store/store.h"

/* Is path a folder right inside base (no "..", no further "/")? */
static int
session_recover_inside(const char *base, const char *path)
{
	size_t n = strlen(base);

	return path != NULL && strncmp(path, base, n) == 0 && path[n] == '/' &&
	    path[n + 1] != '\0' && strchr(path + n + 1, '/') == NULL &&
	    strcmp(path + n + 1, "..") != 0 && strcmp(path + n + 1, ".") != 0;
}

/* Clean up after one note of a session that is not live; 0, or -1 when
 * something it names could not be removed (the note stays). */
static int
session_recover_note(const char *dir, const char *name, const char *base)
{
	char *path;
	json_t *note;
	const char *scratch;
	int rc = 0;

	if (asprintf(&path, "%s/%s", dir, name) == -1)
		return -1;
	if ((note = json_load_file(path, 0, NULL)) != NULL) {
		container_placeholders_remove(json_object_get(note,
		    "placeholders"));
		scratch = json_string_value(json_object_get(note, "scratch"));
		if (session_recover_inside(base, scratch))
			rmtree(scratch);
		if (session_recover_inside(base, scratch) &&
		    access(scratch, F_OK) == 0) {
			log_warn("cannot remove %s (left by a crash)", scratch);
			rc = -1;
		}
		json_decref(note);
	}
	if (rc == 0)
		unlink(path);
	free(path);
	return rc;
}

/* Remove what the notes of sessions that are not live name. */
static int
session_recover_notes(void)
{
	char *dir = session_path("notes", NULL), *base = session_path("scratch",
	    NULL), id[64];
	struct dirent *de;
	size_t n;
	int left = 0, cleaned = 0;
	DIR *d;

	if (dir == NULL || base == NULL || (d = opendir(dir)) == NULL) {
		free(dir);
		free(base);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 5 || n - 5 >= sizeof id ||
		    strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		memcpy(id, de->d_name, n - 5);
		id[n - 5] = '\0';
		if (session_find(id, NULL) != NULL)
			continue;
		if (session_recover_note(dir, de->d_name, base) == -1)
			left++;
		else
			cleaned++;
	}
	closedir(d);
	if (cleaned > 0)
		log_warn("removed what %d session(s) of a previous run left",
		    cleaned);
	free(dir);
	free(base);
	return left;
}

/* At start: mark what a previous run left live as ended by a crash and
 * remove its leftovers. */
int
session_recover(sbox_error *err)
{
	json_t *ids;

	if (session_recover_notes() > 0)
		log_warn("some folders of a previous run could not be removed; "
		    "retrying");
	if ((ids = store_session_mark_crashed(sboxd.store, err)) == NULL)
		return -1;
	if (json_array_size(ids) > 0)
		log_warn("%zu session(s) of a previous run ended by a crash",
		    json_array_size(ids));
	json_decref(ids);
	if (store_command_mark_crashed(sboxd.store, err) < 0)
		return -1;
	if (store_approval_mark_crashed(sboxd.store, err) < 0)
		return -1;
	return 0;
}

/* The database was re-created: insert every live session and its running
 * commands again. */
int
session_store_rewrite(sbox_error *err)
{
	struct session *s;
	sbox_error e;
	int sessions = 0, commands = 0, failed = 0;

	for (s = session_next(NULL); s != NULL; s = session_next(s)) {
		if (s->state != SESSION_STARTING && s->state != SESSION_READY)
			continue;
		error_clear(&e);
		if (session_record(s, s->creator_uid, &e) == -1 ||
		    (s->state == SESSION_READY && store_session_set_state(
		    sboxd.store, s->id, "ready", NULL, &e) == -1)) {
			log_error("store: session %s: %s", s->id, e.message);
			*err = e;
			failed++;
			continue;
		}
		sessions++;
		if (session_hooks.commands_rewrite != NULL)
			failed += session_hooks.commands_rewrite(s, &commands,
			    err);
	}
	log_info("store: wrote %d live session(s) and %d of their command(s) "
	    "into the new database", sessions, commands);
	return failed ? -1 : 0;
}
