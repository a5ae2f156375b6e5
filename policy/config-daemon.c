/* config-daemon.c: the "daemon" object of the config: sboxd's own budgets
 *
 *   "daemon": {"output_mb_per_session": 16, "output_mb_total": 256,
 *              "disk_reserve_mb": 64, "idle_close_s": 0}
 *
 * output_mb_per_session: output kept for command.read/wait/result by one
 * top-level session and the sessions created inside it, together;
 * output_mb_total: by every session; disk_reserve_mb: free space sboxd
 * keeps on its state folder's file system for its own records;
 * idle_close_s: a session with no running command, no client request
 * about it and no close_with_client client for that long is closed (0:
 * never, the default). */
#include "policy/config.h"

#include <stddef.h>
#include <string.h>

#include "policy/jsonpath.h"

/* Budgets used when the config says nothing. */
#define CONFIG_OUTPUT_SESSION_MB 16
#define CONFIG_OUTPUT_TOTAL_MB   256
#define CONFIG_DISK_RESERVE_MB   64
#define CONFIG_DAEMON_FIELD_MAX  256

/* Parse the "daemon" object. */
int
config_parse_daemon(struct config *cfg, const json_t *obj, sbox_error *err)
{
	static const struct { const char *key; size_t off; json_int_t min;
	    const char *unit; } keys[] = {
		{ "output_mb_per_session",
		  offsetof(struct config, output_session_mb), 1, "MiB" },
		{ "output_mb_total", offsetof(struct config, output_total_mb), 1,
		  "MiB" },
		{ "disk_reserve_mb", offsetof(struct config, disk_reserve_mb), 0,
		  "MiB" },
		{ "idle_close_s", offsetof(struct config, idle_close_s), 0,
		  "seconds, 0: never" },
	};
	char f[CONFIG_DAEMON_FIELD_MAX];
	const char *key;
	json_t *v;
	size_t i;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, "daemon", "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (strcmp(keys[i].key, key) == 0)
				break;
		jsonpath_format(f, sizeof f, "daemon.%s", key);
		if (i == sizeof keys / sizeof keys[0])
			return error_set_field(err, E_CONFIG, f, "unknown key "
			    "(expected output_mb_per_session, output_mb_total, "
			    "disk_reserve_mb or idle_close_s)");
		if (!json_is_integer(v) || json_integer_value(v) < keys[i].min ||
		    json_integer_value(v) > 1024 * 1024)
			return error_set_field(err, E_CONFIG, f, "must be an "
			    "integer from %d to 1048576 (%s)", (int)keys[i].min,
			    keys[i].unit);
		*(int64_t *)((char *)cfg + keys[i].off) = json_integer_value(v);
	}
	return 0;
}

/* Bytes of output kept by one top-level session and its children. */
uint64_t
config_output_session_bytes(const struct config *cfg)
{
	return (uint64_t)(cfg && cfg->output_session_mb > 0 ?
	    cfg->output_session_mb : CONFIG_OUTPUT_SESSION_MB) << 20;
}

/* Bytes of output kept by all sessions. */
uint64_t
config_output_total_bytes(const struct config *cfg)
{
	return (uint64_t)(cfg && cfg->output_total_mb > 0 ?
	    cfg->output_total_mb : CONFIG_OUTPUT_TOTAL_MB) << 20;
}

/* Bytes sboxd keeps free on its state file system. */
uint64_t
config_disk_reserve_bytes(const struct config *cfg)
{
	return (uint64_t)(cfg && cfg->disk_reserve_mb >= 0 ?
	    cfg->disk_reserve_mb : CONFIG_DISK_RESERVE_MB) << 20;
}

/* Seconds a session may stay idle before sboxd closes it (0: never). */
int64_t
config_idle_close_s(const struct config *cfg)
{
	return cfg && cfg->idle_close_s > 0 ? cfg->idle_close_s : 0;
}
