/* registries.h: the hosts of network "registries".
 *
 * The package registries and code hosts a profile with network "registries"
 * reaches are read at run time, so a corporate mirror just works:
 *   1. the user's own tool configuration, from the home folder and the
 *      client's environment: npm (NPM_CONFIG_REGISTRY, ~/.npmrc `registry=`
 *      and `@scope:registry=`), Yarn (~/.yarnrc `registry`, ~/.yarnrc.yml
 *      `npmRegistryServer`), pip (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
 *      PIP_CONFIG_FILE, ~/.config/pip/pip.conf, ~/.pip/pip.conf,
 *      /etc/pip.conf `index-url` / `extra-index-url`), cargo
 *      (~/.cargo/config.toml and ~/.cargo/config `registry` / `index`), Go
 *      (GOPROXY, "direct" and "off" skipped), NuGet
 *      (~/.nuget/NuGet/NuGet.Config package source values);
 *   2. then the public defaults, which sbox does not hard-code: they come from
 *      a data file the user or the installer controls, one host pattern a
 *      line, `#` starts a comment: $SBOX_REGISTRIES_FILE (it must then exist),
 *      else /etc/sbox/registries, else the caller's fallback (such as
 *      PREFIX/share/sbox/registries). When none exists, the registries are
 *      only what the user's tool configuration names.
 * Only host names (and ports) are taken from URLs; credentials in them are
 * ignored. Nothing inside a project folder is read. */
#ifndef SBOX_REGISTRIES_H
#define SBOX_REGISTRIES_H

#include <stddef.h>

#include "protocol/error.h"

#define REGISTRIES_SYSTEM_FILE "/etc/sbox/registries"

/* The host pattern ("host" or "host:port", canonical) of a URL such as
 * "https://user:pw@Npm.Corp.example:8443/path", written to buf; -1 when the
 * URL has no valid host. A "sparse+" or "git+" prefix is ignored. */
int registries_url_host(const char *url, char *buf, size_t len);
/* Read a defaults file: host patterns one a line; adds them to *out (unique).
 * E_CONFIG naming file and line for a bad pattern, E_IO if unreadable. */
int registries_read_file(const char *path, char ***out, sbox_error *err);
/* The defaults file to use ($SBOX_REGISTRIES_FILE, /etc/sbox/registries,
 * fallback): a pointer to one of them, or NULL when none exists. */
const char *registries_defaults_file(const char *fallback);
/* All registry hosts: the user's tool configuration (home may be NULL; env is
 * the client's "N=V" list, may be NULL), then the defaults file. *out is a
 * new NULL-terminated list (possibly empty: NULL). */
int registries_collect(const char *home, char *const *env,
    const char *fallback_file, char ***out, sbox_error *err);

#endif
