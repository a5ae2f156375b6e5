/* config-reload.c: replacing the daemon's config with what its file says
 * now (SIGHUP, a host saved into a profile), keeping the old one when the
 * new one is broken or gone. */
#include "daemon/config-reload.h"

#include <string.h>

#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/config.h"

/* Load the config file again; on error keep the old config (logged and
 * published as config.rejected) and return -1 with err. A missing file is
 * such an error unless allow_missing (config.reset): a reload never turns
 * a config into the empty one by accident. */
int
config_reload_file(const char *why, int allow_missing, sbox_error *err)
{
	struct config *cfg;

	cfg = allow_missing ? config_load(sboxd.config_path, err) :
	    config_load_existing(sboxd.config_path, err);
	if (cfg == NULL) {
		if (strcmp(err->field, "missing") == 0)
			error_set_field(err, E_CONFIG, "missing", "%s is gone: the "
			    "old config stays in force (to run without a config "
			    "file, use `sbox config reset` or restart sboxd)",
			    sboxd.config_path);
		log_error("config reload refused (%s), keeping the old config: %s",
		    why, err->message);
		events_publish("config.rejected", NULL, json_pack("{s:s, s:s}",
		    "path", sboxd.config_path, "error", err->message));
		return -1;
	}
	config_free(sboxd.config);
	sboxd.config = cfg;
	sboxd.config_gen++;
	log_info("config reloaded from %s (%s)", sboxd.config_path, why);
	events_publish("config.reloaded", NULL, json_pack("{s:s}", "path",
	    sboxd.config_path));
	return 0;
}

/* Load the config file again (a missing file keeps the old config). */
int
config_reload(const char *why, sbox_error *err)
{
	return config_reload_file(why, 0, err);
}
