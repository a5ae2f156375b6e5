/* session.c: the registry of live sessions. */
#include "daemon/session.h"

#include <jansson.h>

#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "store/store.h"

static int session_live;

/* Number of live sessions. */
int
session_count(void)
{
	return session_live;
}

/* Close every live session (daemon shutdown), recording why. */
void
session_close_all(const char *reason)
{
	(void)reason;
}

/* At start: mark what a previous run left live as ended by a crash. */
int
session_recover(sbox_error *err)
{
	json_t *ids;
	int n;

	if ((ids = store_session_mark_crashed(sboxd.store, err)) == NULL)
		return -1;
	if (json_array_size(ids) > 0)
		log_warn("%zu session(s) of a previous run ended by a crash",
		    json_array_size(ids));
	json_decref(ids);
	if ((n = store_command_mark_crashed(sboxd.store, err)) < 0)
		return -1;
	if (store_approval_mark_crashed(sboxd.store, err) < 0)
		return -1;
	return 0;
}
