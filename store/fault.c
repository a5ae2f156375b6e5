/* fault.c: the fault bookkeeping (is the database failing? degraded until a
 * write succeeds; retries back off STORE_RETRY_MS) and whether the file was
 * moved under us; below the statement helpers, above only the clock. */
#include "store/fault.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#define STORE_RETRY_MS 1000

/* Did the last failure come from the database's condition (retry later)
 * rather than from the request (a write that can never succeed)? */
int
store_fault_is(const struct store *st)
{
	switch (st->last_rc & 0xff) {
	case SQLITE_BUSY: case SQLITE_LOCKED: case SQLITE_NOMEM:
	case SQLITE_READONLY: case SQLITE_IOERR: case SQLITE_FULL:
	case SQLITE_CANTOPEN: case SQLITE_PROTOCOL:
		return 1;
	default:
		return 0;
	}
}

/* Note a fault: the store is degraded until a write succeeds again. */
void
store_fault_note(struct store *st, const sbox_error *err)
{
	st->fault = 1;
	st->retry_at = store_clock_now_ms() + STORE_RETRY_MS;
	if (err != NULL)
		snprintf(st->last_error, sizeof st->last_error, "%s",
		    err->message);
}

/* Writes go through again. */
void
store_fault_ok(struct store *st)
{
	if (st->ndelayed == 0)
		st->fault = 0;
	st->retry_at = 0;
}

/* Was the database file deleted, renamed or replaced under us? */
int
store_fault_moved(struct store *st)
{
	struct stat sb;
	int moved = 0;

	/* HAS_MOVED compares the name's inode with the open file's (a name
	 * that is gone counts as moved): a stat of our own only when it
	 * cannot say (one stat per write, not two) */
	if (sqlite3_file_control(st->db, "main", SQLITE_FCNTL_HAS_MOVED,
	    &moved) != SQLITE_OK)
		moved = stat(st->path, &sb) == -1 && errno == ENOENT;
	return moved;
}

