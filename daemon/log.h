/* log.h: the daemon's log (stderr, or syslog-style lines when detached). */
#ifndef SBOX_LOG_H
#define SBOX_LOG_H

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* Set the level from a name (error, warn, info, debug); -1 if unknown. */
int log_set_level(const char *name);
/* The level's name. */
const char *log_level_name(void);
/* Log one line at a level. */
void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Write the "N more like this" lines of warning/error templates whose
 * interval ended (all of them when all is set, at shutdown). */
void log_flush_repeats(int all);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
