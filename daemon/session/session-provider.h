/* session-provider.h: what a session's provider needs from the daemon: its
 * own home folder under sbox's state folder. */
#ifndef SBOX_SESSION_PROVIDER_H
#define SBOX_SESSION_PROVIDER_H

#include "protocol/error.h"

struct profile;

/* The provider's account folders are made when missing (0700). Its home
 * folder, <state_dir>/homes/<provider>, is created when
 * missing (mode 0700; owned by the sandbox's uid when sboxd runs as root):
 * *out is a new string, or NULL when the profile keeps no home. -1 with
 * err when it cannot be made, or is not a plain folder. */
int session_provider_home(const struct profile *p, char **out,
    sbox_error *err);

/* Before a session of p starts in its own home phome (home: the home
 * folder's path inside): every protected name the plan would bind there
 * that is (or passes through) a link, a device, a fifo or a socket, or a
 * file where a folder is needed, is moved to session_provider_aside_dir so
 * that the session starts; *moved is a new list of them (relative), NULL
 * when none. */
#include <jansson.h>
struct guard_table;
void session_provider_aside(const struct profile *p, const char *phome,
    const char *home, const struct guard_table *t, char ***moved);
/* Add to w a warning for each entry of moved (session_provider_aside). */
void session_provider_moved_warnings(json_t *w, const char *provider,
    char *const *moved);
/* <state>/homes/.aside-<provider> (malloc'd), or NULL. */
char *session_provider_aside_dir(const char *provider);
/* Warnings for the provider, model and space names of a session that the
 * config (with the built-in providers) does not know: a JSON array. */
#include <jansson.h>
json_t *session_provider_warnings(const char *provider, const char *model,
    const char *space);

#endif
