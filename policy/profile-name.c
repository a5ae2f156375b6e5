/* profile-name.c: what a profile's name may be. */
#include "policy/profile-name.h"

#include <ctype.h>
#include <string.h>

/* True when name is a valid profile name. */
int
profile_name_valid(const char *name)
{
	size_t i;

	if (name == NULL || name[0] == '\0' || strlen(name) > 64)
		return 0;
	if (!islower((unsigned char)name[0]) && !isdigit((unsigned char)name[0]))
		return 0;
	for (i = 1; name[i] != '\0'; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!islower(c) && !isdigit(c) && c != '-' && c != '_' && c != '.')
			return 0;
	}
	return 1;
}
