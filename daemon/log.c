/* log.c: one-line log messages on stderr with a level filter. Warnings and
 * errors are rate-limited per message template: the first few of each in
 * an interval are written, the rest become one "N more like this" line. */
#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/ratelimit.h"

#define LOG_BURST       10      /* lines of one template per interval */
#define LOG_INTERVAL_MS 10000
#define LOG_KEYS        64

static enum log_level log_level = LOG_LEVEL_INFO;
static const char *log_names[] = { "error", "warn", "info", "debug" };
static struct ratelimit log_rl;
static struct ratelimit_slot log_slots[LOG_KEYS];
static int log_rl_ready;

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

/* The level's name. */
const char *
log_level_name(void)
{
	return log_names[log_level];
}

/* Milliseconds on the monotonic clock (log.c stands alone). */
static long long
log_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write the time and level prefix of one line. */
static void
log_prefix(enum log_level level)
{
	char when[32];
	struct tm tm;
	time_t now;

	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s sboxd[%s]: ", when, log_names[level]);
}

/* Write the summary of lines held back for one template. */
static void
log_report(const char *key, unsigned long suppressed, void *arg)
{
	(void)arg;
	log_prefix(LOG_LEVEL_WARN);
	fprintf(stderr, "%lu more like this: %s\n", suppressed, key);
}

/* Log one line at a level. */
void
log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	if (level <= LOG_LEVEL_WARN) {
		if (!log_rl_ready) {
			ratelimit_init(&log_rl, log_slots, LOG_KEYS, LOG_BURST,
			    LOG_INTERVAL_MS);
			log_rl_ready = 1;
		}
		if (!ratelimit_hit(&log_rl, fmt, log_now_ms(), log_report, NULL))
			return;
	}
	log_prefix(level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Write the "N more like this" lines of templates whose interval ended
 * (all of them when all is set, at shutdown). */
void
log_flush_repeats(int all)
{
	if (!log_rl_ready)
		return;
	if (all)
		ratelimit_flush(&log_rl, log_report, NULL);
	else
		ratelimit_expire(&log_rl, log_now_ms(), log_report, NULL);
}
