/* render-sbpl.h: the plan as a macOS Seatbelt (SBPL) profile for
 * sandbox-exec. Deny by default; read the system folders and the read-only
 * binds; read and write the project, the scratch folder, /tmp and the
 * read-write binds; the hidden paths (credentials, sbox's own files, denied
 * folders) neither read nor written, the read-only protections (.git hooks,
 * editor settings, ...) not written (nor created), these rules placed last
 * so they win; the network only to the proxy port and the profile's local
 * ports on localhost, listening on localhost allowed; Apple Events and
 * LaunchServices refused so a command cannot drive or start another app.
 * Seatbelt cannot give a private /tmp: /tmp maps to the host's /private/tmp. */
#ifndef SBOX_RENDER_SBPL_H
#define SBOX_RENDER_SBPL_H

#include "policy/plan.h"
#include "protocol/error.h"

/* The SBPL text for plan p with the proxy listening on 127.0.0.1:proxy_port;
 * malloc'd, NULL with err for an unsandboxed plan or on ENOMEM. */
char *render_sbpl(const struct plan *p, int proxy_port, sbox_error *err);

#endif
