/* profile-env.c: the variables a provider entry sets in a profile
 * (env_values, "NAME=VALUE"). */
#include "policy/profile-env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/strv.h"

/* Add "NAME=VALUE" to p->env_values, replacing an earlier NAME. */
int
profile_env_set_value(struct profile *p, const char *name, const char *value)
{
	size_t i, n = strlen(name);
	char *s;

	if (asprintf(&s, "%s=%s", name, value) == -1)
		return -1;
	for (i = 0; p->env_values != NULL && p->env_values[i] != NULL; i++) {
		if (strncmp(p->env_values[i], name, n) == 0 &&
		    p->env_values[i][n] == '=') {
			free(p->env_values[i]);
			p->env_values[i] = s;
			return 0;
		}
	}
	return strv_push(&p->env_values, s);
}
