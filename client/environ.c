/* environ.c: the client's own environment, as the sessions it makes take
 * it (the profile chooses what passes). */
#include "client/client.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Our environment as a JSON object {NAME: VALUE}. */
json_t *
environ_json(void)
{
	json_t *env = json_object();
	char **e, *eq, *name;

	for (e = environ; e && *e; e++) {
		if ((eq = strchr(*e, '=')) == NULL || eq == *e)
			continue;
		if ((name = strndup(*e, (size_t)(eq - *e))) != NULL)
			json_object_set_new(env, name, json_string(eq + 1));
		free(name);
	}
	return env;
}
