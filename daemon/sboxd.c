/* sboxd.c: the daemon's global state and its clock, at the bottom of
 * daemon/: every room may use them. main.c fills the state at start and
 * names the function that shuts the daemon down. */
#include "daemon/sboxd.h"
#include "daemon/events.h"

#include <stddef.h>
#include <time.h>

struct sboxd sboxd;

/* Milliseconds on the monotonic clock. */
long long
sboxd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Begin an orderly shutdown: told on the event bus (main.c subscribes;
 * nothing happens before it has). */
void
sboxd_shutdown(const char *why)
{
	events_tell("daemon.stopping", NULL, json_pack("{s:s}", "why", why));
}
