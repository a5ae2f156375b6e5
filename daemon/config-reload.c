/* config-reload.c: replacing the daemon's config with what its file says
 * now (SIGHUP, a host saved into a profile), keeping the old one when the
 * new one is broken. */
#include "daemon/config-reload.h"

#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/config.h"

/* Load the config file again; on error keep the old config (logged and
 * published as config.rejected) and return -1 with err. */
int
config_reload(const char *why, sbox_error *err)
{
	struct config *cfg;

	if ((cfg = config_load(sboxd.config_path, err)) == NULL) {
		log_error("config reload refused (%s), keeping the old config: %s",
		    why, err->message);
		events_publish("config.rejected", NULL, json_pack("{s:s, s:s}",
		    "path", sboxd.config_path, "error", err->message));
		return -1;
	}
	config_free(sboxd.config);
	sboxd.config = cfg;
	log_info("config reloaded from %s (%s)", sboxd.config_path, why);
	events_publish("config.reloaded", NULL, json_pack("{s:s}", "path",
	    sboxd.config_path));
	return 0;
}
