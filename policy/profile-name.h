/* profile-name.h: what a profile's name may be. */
#ifndef SBOX_PROFILE_NAME_H
#define SBOX_PROFILE_NAME_H


/* True when name is a valid profile name ([a-z0-9][a-z0-9_.-]*, <= 64). */
int profile_name_valid(const char *name);

#endif
