/* sboxd.c: the daemon's global state and its clock, at the bottom of
 * daemon/: every room may use them. main.c fills the state at start and
 * names the function that shuts the daemon down. */
#include "daemon/sboxd.h"

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

static void (*sboxd_shutdown_fn)(const char *why);

/* Name the function that shuts the daemon down (main.c, at start). */
void
sboxd_on_shutdown(void (*fn)(const char *why))
{
	sboxd_shutdown_fn = fn;
}

/* Begin an orderly shutdown: the function main.c named (nothing before). */
void
sboxd_shutdown(const char *why)
{
	if (sboxd_shutdown_fn != NULL)
		sboxd_shutdown_fn(why);
}
