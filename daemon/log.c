/* log.c: one-line log messages on stderr with a level filter. */
#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static enum log_level log_level = LOG_LEVEL_INFO;
static const char *log_names[] = { "error", "warn", "info", "debug" };

/* Set the level from a name (error, warn, info, debug); -1 if unknown. */
int
log_set_level(const char *name)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (strcmp(name, log_names[i]) == 0) {
			log_level = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

/* Log one line at a level. */
void
log_msg(enum log_level level, const char *fmt, ...)
{
	char when[32];
	struct tm tm;
	time_t now;
	va_list ap;

	if (level > log_level)
		return;
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s sboxd[%s]: ", when, log_names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
