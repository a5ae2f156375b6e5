/* migrate.c: the schema, as numbered steps keyed on PRAGMA user_version.
 *
 * Step N brings a database from version N-1 to N and sets user_version = N
 * itself, inside one transaction with the step: a step is applied whole or
 * not at all. Never edit a released step; add one.
 *
 * Column conventions (store_stmt_row relies on them): times are INTEGER unix
 * milliseconds named *_at; JSON is declared JSON_TEXT (TEXT affinity, so
 * "5" stays text; always written by jansson, so no json_valid() CHECK,
 * which trusted_schema=OFF would refuse anyway); booleans are BOOLEAN. The batched tables
 * (refusals, events) have no foreign keys, so one record can never make a
 * whole batch fail.
 */
#include "store/migrate.h"
#include "store/stmt.h"

#include <stddef.h>

static const char *const store_migrate_steps[STORE_SCHEMA_VERSION] = {
	/* [v] brings version v to v + 1. A NULL step is a version number kept
	 * for a step another branch adds: it only sets user_version. */
	/* 1: the tables */
	[0] =
	"CREATE TABLE meta ("
	"  key   TEXT PRIMARY KEY NOT NULL,"
	"  value TEXT"
	");"
	"CREATE TABLE sessions ("
	"  id               TEXT PRIMARY KEY NOT NULL"
	"                   CHECK (length(id) BETWEEN 1 AND 64),"
	"  title            TEXT,"
	"  project          TEXT NOT NULL,"
	"  profile          TEXT NOT NULL,"
	"  resolved_profile JSON_TEXT NOT NULL DEFAULT '{}',"
	"  provenance       JSON_TEXT,"
	"  provider         TEXT,"
	"  model            TEXT,"
	"  space            TEXT,"
	"  parent           TEXT REFERENCES sessions(id),"
	"  state            TEXT NOT NULL DEFAULT 'starting' CHECK (state IN"
	"                   ('starting','ready','closed','failed','ended_by_crash')),"
	"  created_at       INTEGER NOT NULL,"
	"  closed_at        INTEGER,"
	"  close_reason     TEXT,"
	"  creator_uid      INTEGER"
	");"
	"CREATE TABLE approvals ("
	"  id           INTEGER PRIMARY KEY,"
	"  session      TEXT NOT NULL REFERENCES sessions(id),"
	"  argv         JSON_TEXT NOT NULL,"
	"  cwd          TEXT,"
	"  reason       TEXT NOT NULL,"
	"  requested_at INTEGER NOT NULL,"
	"  decision     TEXT NOT NULL DEFAULT 'pending' CHECK (decision IN"
	"               ('pending','allow_once','deny','timeout','refused_never',"
	"                'refused_headless','not_run_crash')),"
	"  decided_by   TEXT,"
	"  decided_at   INTEGER,"
	"  command_id   INTEGER REFERENCES commands(id),"
	"  exit_code    INTEGER,"
	"  duration_ms  INTEGER"
	");"
	"CREATE TABLE commands ("
	"  id          INTEGER PRIMARY KEY,"
	"  session     TEXT NOT NULL REFERENCES sessions(id),"
	"  seq         INTEGER NOT NULL,"
	"  argv        JSON_TEXT NOT NULL,"
	"  cwd         TEXT,"
	"  env_names   JSON_TEXT,"
	"  detach      BOOLEAN NOT NULL DEFAULT 0,"
	"  outside     BOOLEAN NOT NULL DEFAULT 0,"
	"  approval_id INTEGER REFERENCES approvals(id),"
	"  started_at  INTEGER NOT NULL,"
	"  ended_at    INTEGER,"
	"  exit_code   INTEGER,"
	"  signal      INTEGER,"
	"  duration_ms INTEGER,"
	"  state       TEXT NOT NULL DEFAULT 'running' CHECK (state IN"
	"              ('running','exited','killed','timeout','failed','not_run',"
	"               'ended_by_crash')),"
	"  blocked     JSON_TEXT,"
	"  UNIQUE (session, seq)"
	");"
	"CREATE TABLE refusals ("
	"  id         INTEGER PRIMARY KEY,"
	"  session    TEXT NOT NULL,"
	"  command_id INTEGER,"
	"  host       TEXT NOT NULL,"
	"  port       INTEGER NOT NULL,"
	"  reason     TEXT NOT NULL,"
	"  rule       TEXT,"
	"  created_at INTEGER NOT NULL"
	");"
	"CREATE TABLE events ("
	"  id         INTEGER PRIMARY KEY,"
	"  topic      TEXT NOT NULL,"
	"  session    TEXT,"
	"  data       JSON_TEXT,"
	"  created_at INTEGER NOT NULL"
	");"
	"INSERT INTO meta (key, value) VALUES"
	"  ('created_at',"
	"   CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));"
	"PRAGMA user_version = 1;",

	/* 2: indexes for the queries (live sessions, crash recovery, the
	 * timeline's refusals, audit filters) */
	[1] =
	"CREATE INDEX sessions_live ON sessions (created_at)"
	"  WHERE state IN ('starting','ready');"
	"CREATE INDEX sessions_parent ON sessions (parent)"
	"  WHERE parent IS NOT NULL;"
	"CREATE INDEX commands_running ON commands (id)"
	"  WHERE state = 'running';"
	"CREATE INDEX commands_approval ON commands (approval_id)"
	"  WHERE approval_id IS NOT NULL;"
	"CREATE INDEX approvals_session ON approvals (session, requested_at);"
	"CREATE INDEX approvals_requested ON approvals (requested_at);"
	"CREATE INDEX approvals_pending ON approvals (id)"
	"  WHERE decision = 'pending';"
	"CREATE INDEX approvals_command ON approvals (command_id)"
	"  WHERE command_id IS NOT NULL;"
	"CREATE INDEX refusals_session ON refusals (session, host, port);"
	"CREATE INDEX refusals_command ON refusals (command_id)"
	"  WHERE command_id IS NOT NULL;"
	"CREATE INDEX events_created ON events (created_at);"
	"PRAGMA user_version = 2;",

	/* 3: refusals aggregated: one row per (session, command, host, port,
	 * rule) with a count, the first and last time, and seq (the order of
	 * the rows' last refusals; id keeps the order of their first) */
	[2] =
	"CREATE TABLE refusals_agg ("
	"  id         INTEGER PRIMARY KEY,"
	"  session    TEXT NOT NULL,"
	"  command_id INTEGER,"
	"  host       TEXT NOT NULL,"
	"  port       INTEGER NOT NULL,"
	"  rule       TEXT,"
	"  reason     TEXT NOT NULL,"
	"  count      INTEGER NOT NULL DEFAULT 1,"
	"  first_at   INTEGER NOT NULL,"
	"  last_at    INTEGER NOT NULL,"
	"  seq        INTEGER NOT NULL DEFAULT 0"  /* order of the last refusals */
	");"
	"INSERT INTO refusals_agg (session, command_id, host, port, rule,"
	"  reason, count, first_at, last_at, seq)"
	"  SELECT session, command_id, host, port, rule, reason, count(*),"
	"  min(created_at), max(created_at), max(id) FROM refusals"
	"  GROUP BY session, command_id, host, port, rule ORDER BY min(id);"
	"DROP TABLE refusals;"
	"ALTER TABLE refusals_agg RENAME TO refusals;"
	"CREATE INDEX refusals_session ON refusals (session, host, port);"
	"CREATE INDEX refusals_command ON refusals (command_id)"
	"  WHERE command_id IS NOT NULL;"
	"CREATE INDEX refusals_seq ON refusals (seq);"
	"PRAGMA user_version = 3;",

	/* 4: what a run outside executes exactly (issue 12): the absolute
	 * program, whether the sandbox could write it or the folder, the
	 * variables added and the names dropped. Touches the approvals table
	 * only, so it does not depend on step 3. */
	[3] =
	"ALTER TABLE approvals ADD COLUMN program TEXT;"
	"ALTER TABLE approvals ADD COLUMN program_writable BOOLEAN;"
	"ALTER TABLE approvals ADD COLUMN cwd_writable BOOLEAN;"
	"ALTER TABLE approvals ADD COLUMN env JSON_TEXT;"
	"ALTER TABLE approvals ADD COLUMN env_dropped JSON_TEXT;"
	"PRAGMA user_version = 4;",
};

static const char SQL_USER_VERSION[] = "PRAGMA user_version";

/* The database's PRAGMA user_version, or -1 with err. */
int
store_migrate_version(struct store *st, sbox_error *err)
{
	sqlite3_stmt *stmt;
	int rc, v;

	if ((stmt = store_stmt_get(st, SQL_USER_VERSION, err)) == NULL)
		return -1;
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		store_stmt_error(st, err, "reading the schema version");
		store_stmt_done(stmt);
		return -1;
	}
	v = sqlite3_column_int(stmt, 0);
	store_stmt_done(stmt);
	return v;
}

/* Apply the steps from the database's version up to target, one
 * transaction each; a database newer than this program is refused. */
int
store_migrate(struct store *st, int target, sbox_error *err)
{
	char *msg = NULL, *step;
	int v, rc;

	if (target < 1 || target > STORE_SCHEMA_VERSION)
		return error_set(err, E_INTERNAL,
		    "store: no schema version %d", target);
	if ((v = store_migrate_version(st, err)) == -1)
		return -1;
	if (v > STORE_SCHEMA_VERSION)
		return error_set(err, E_STORE_VERSION,
		    "database %s has schema version %d, newer than this sbox "
		    "knows (%d); use a newer sbox or another state folder",
		    st->path, v, STORE_SCHEMA_VERSION);
	while (v < target) {
		if (store_stmt_tx_begin(st, 1, err) == -1)
			return error_context(err, "migrating");
		/* another process may have migrated meanwhile */
		if ((v = store_migrate_version(st, err)) == -1) {
			store_stmt_tx_rollback(st);
			return -1;
		}
		if (v >= target) {
			store_stmt_tx_rollback(st);
			break;
		}
		if (store_migrate_steps[v] == NULL)
			step = sqlite3_mprintf("PRAGMA user_version = %d;", v + 1);
		else
			step = sqlite3_mprintf("%s", store_migrate_steps[v]);
		if (step == NULL) {
			store_stmt_tx_rollback(st);
			return error_nomem(err);
		}
		rc = sqlite3_exec(st->db, step, NULL, NULL, &msg);
		sqlite3_free(step);
		if (rc != SQLITE_OK) {
			error_set(err, E_STORE,
			    "migrating database %s from schema version %d to "
			    "%d: %s", st->path, v, v + 1,
			    msg != NULL ? msg : sqlite3_errmsg(st->db));
			sqlite3_free(msg);
			store_stmt_tx_rollback(st);
			return -1;
		}
		if (store_stmt_tx_commit(st, err) == -1)
			return error_context(err, "migrating to version %d",
			    v + 1);
		v++;
	}
	return 0;
}
