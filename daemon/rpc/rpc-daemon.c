/* rpc-daemon.c: daemon.status, daemon.stop and daemon.reload. */
#include <unistd.h>

#include <event2/event.h>

#include "daemon/config-reload.h"
#include "daemon/container/diskguard.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "daemon/store-watch.h"
#include "policy/config.h"

/* daemon.status: version, pid, uptime, connections, sessions, store path. */
static int
rpc_daemon_status(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)call; (void)params;
	*result = json_pack("{s:s, s:i, s:I, s:i, s:i, s:s, s:s, s:s, s:s, s:b}",
	    "version", SBOX_VERSION, "pid", (int)getpid(),
	    "uptime_ms", (json_int_t)(sboxd_now_ms() -
	    ((long long)sboxd.started_mono.tv_sec * 1000 +
	    sboxd.started_mono.tv_nsec / 1000000)),
	    "connections", sboxd.connections, "sessions", session_count(),
	    "store", sboxd.db_path, "socket", sboxd.socket_path,
	    "state_dir", sboxd.state_dir, "config", sboxd.config_path,
	    "stopping", sboxd.stopping);
	if (*result == NULL)
		return error_nomem(err);
	/* memory only: answered at once even while the database is locked */
	json_object_set_new(*result, "store_health", store_watch_health());
	/* the state disk and its reserve (issue 45: a scaled-down reserve
	 * is said here, as in the log) */
	json_object_set_new(*result, "disk", diskguard_describe());
	return 0;
}

/* Begin the shutdown once the reply to daemon.stop has been queued. */
static void
rpc_daemon_stop_later(evutil_socket_t fd, short what, void *arg)
{
	(void)fd; (void)what; (void)arg;
	sboxd_shutdown("daemon.stop");
}

/* daemon.stop: reply, then shut down in order. */
static int
rpc_daemon_stop(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct timeval now = { 0, 0 };

	(void)call; (void)params;
	if (event_base_once(sboxd.base, -1, EV_TIMEOUT, rpc_daemon_stop_later,
	    NULL, &now) == -1)
		return error_set(err, E_INTERNAL, "cannot schedule the shutdown");
	*result = json_pack("{s:b, s:i}", "stopping", 1, "pid", (int)getpid());
	return 0;
}

/* daemon.reload: load the config file again, as SIGHUP does; a broken or
 * missing one is refused (sbox.ConfigError) and the old one stays. */
static int
rpc_daemon_reload(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)call; (void)params;
	if (config_reload("daemon.reload", err) == -1)
		return -1;
	*result = json_pack("{s:b, s:s}", "reloaded", 1, "config",
	    sboxd.config_path);
	return *result ? 0 : error_nomem(err);
}

/* config.reset: load the config file as at start: a missing file is the
 * empty config (the one way to drop a deleted config without a restart). */
static int
rpc_daemon_config_reset(struct rpc_call *call, json_t *params,
    json_t **result, sbox_error *err)
{
	(void)call; (void)params;
	if (config_reload_file("config.reset", 1, err) == -1)
		return -1;
	*result = json_pack("{s:b, s:s, s:b}", "reloaded", 1, "config",
	    sboxd.config_path, "file", access(sboxd.config_path, F_OK) == 0);
	return *result ? 0 : error_nomem(err);
}

const struct rpc_method rpc_daemon_methods[] = {
	{ "daemon.status", NULL, rpc_daemon_status, 0,
	  "version, pid, uptime, connections, sessions, paths, store health" },
	{ "daemon.stop", NULL, rpc_daemon_stop, RPC_HOST_ONLY,
	  "close every session and stop the daemon" },
	{ "daemon.reload", NULL, rpc_daemon_reload, RPC_HOST_ONLY,
	  "load the config file again (as SIGHUP)" },
	{ "config.reset", NULL, rpc_daemon_config_reset, RPC_HOST_ONLY,
	  "load the config file as at start: a missing file is the empty config" },
	{ NULL, NULL, NULL, 0, NULL },
};
