/* clock.c: the store's wall clock (the bottom of store/: every file may
 * call it, it calls none). */
#include "store/store-types.h"

#include <time.h>

/* Wall-clock time in unix milliseconds. */
long long
store_clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

