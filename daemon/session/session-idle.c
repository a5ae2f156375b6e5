/* session-idle.c: the config's daemon.idle_close_s: a session with no
 * running command, no client request about it and no close_with_client
 * client for that long is closed, recorded as idle. Sessions made inside
 * another close with it, not on their own. */
#include "daemon/session/session-internal.h"
#include "daemon/session/session.h"

#include <stdio.h>

#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/config.h"
#include "store/store.h"

/* Close the sessions idle past idle_close_s (about once a second). */
void
session_idle_tick(void)
{
	int64_t limit = config_idle_close_s(sboxd.config);
	long long now;
	struct session *s, *next;
	char why[96];

	if (limit <= 0)
		return;
	now = store_clock_now_ms();
	for (s = session_next(NULL); s != NULL; s = next) {
		next = session_next(s);
		if (s->state != SESSION_READY || s->parent != NULL ||
		    s->with_client != 0)
			continue;
		if (session_hooks.commands_running != NULL &&
		    session_hooks.commands_running(s) > 0) {
			s->active_ms = now;
			continue;
		}
		if (now - s->active_ms < limit * 1000)
			continue;
		snprintf(why, sizeof why, "idle: no command and no client for "
		    "%lld s (idle_close_s)", (long long)limit);
		log_info("session %s: %s", s->id, why);
		session_close_now(s, why, 0);
	}
}
