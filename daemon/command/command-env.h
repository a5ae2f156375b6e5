/* command-env.h: what a command starts with (command-env.c): its
 * environment and its working folder. */
#ifndef SBOX_COMMAND_ENV_H
#define SBOX_COMMAND_ENV_H

#include "daemon/command/command-state.h"

/* The environment of a command (the session's, then the request's), and
 * its working folder (absolute, or relative to the project; normalised);
 * NULL with err. */
char **command_env(const struct command_params *p, sbox_error *err);
char *command_cwd(const struct command_params *p, sbox_error *err);

#endif
