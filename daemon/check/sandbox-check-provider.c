/* sandbox-check-provider.c: the steps `sbox sandbox check --provider NAME`
 * adds to the check: each of the provider's hosts is let through by the
 * session's proxy (or the answer says it is refused, and why), and its home
 * folder is writable. They run in the same test script, after its own steps,
 * and print "PSTEP\tkey\tok|fail\tdetail" lines. */
#include "daemon/check/sandbox-check.h"

#include <stdio.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sboxd.h"
#include "daemon/session/session-provider.h"
#include "policy/config.h"
#include "policy/hostpat.h"

/* The provider steps; $7 is the proxy port; $HOST_LIST is appended. */
static const char sandbox_check_provider_tail[] =
	"pstep() { printf 'PSTEP\\t%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"$(printf '%s' \"$3\" | tr '\\t\\r\\n' '   ' | cut -c1-600)\"; }\n"
	"ok=ok d=\n"
	"for h in $PHOSTS; do\n"
	"\tr=$(python3 -c 'import socket,sys\n"
	"s=socket.create_connection((\"127.0.0.1\",int(sys.argv[1])),10)\n"
	"s.sendall(b\"CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n\" % (sys.argv[2].encode(), sys.argv[2].encode()))\n"
	"a=s.recv(2048).decode(\"latin-1\").split(\"\\r\\n\")\n"
	"why=[x.split(\":\",1)[1].strip() for x in a if x.lower().startswith(\"x-sbox-refused:\")]\n"
	"print(a[0] + (\" (\" + why[0] + \")\" if why else \"\"))' \"$7\" \"$h\" 2>&1)\n"
	"\tcase \"$r\" in\n"
	"\tHTTP/*\"network is off\"*|HTTP/*\"not in the allowlist\"*) ok=fail d=\"$d$h refused: $r; \";;\n"
	"\tHTTP/*) d=\"$d$h let through by the proxy ($r); \";;\n"
	"\t*) ok=fail d=\"$d$h: no answer from the proxy: $r; \";;\n"
	"\tesac\n"
	"done\n"
	"[ -n \"$PHOSTS\" ] || d=\"the provider lists no hosts; \"\n"
	"pstep provider_hosts \"$ok\" \"${d%; }\"\n"
	"rm -f \"$HOME/.sbox-check-probe\" 2>/dev/null\n"	/* write_out's, in its own home */
	"f=\"$HOME/.sbox-check-home-$$\"\n"
	"if printf x > \"$f\" 2>/dev/null && rm -f \"$f\"; then pstep provider_home ok \"$HOME is writable ($PHOME)\"\n"
	"else pstep provider_home fail \"$HOME is not writable ($PHOME)\"; fi\n";

/* The check script with the provider's steps added (malloc'd), or NULL. */
char *
sandbox_check_provider_script(const char *script, const char *provider)
{
	const struct config_binding *b;
	char *out, *hosts = NULL, *n;
	struct hostpat hp;
	size_t i;

	if (provider == NULL || sboxd.config == NULL || (b = config_find_binding(
	    sboxd.config->providers, sboxd.config->n_providers, provider)) ==
	    NULL)
		return NULL;
	if ((hosts = strdup("")) == NULL)
		return NULL;
	for (i = 0; b->hosts != NULL && b->hosts[i] != NULL; i++) {
		/* a pattern such as *.example cannot be tried as such */
		if (hostpat_parse(b->hosts[i], &hp, NULL) == -1 || hp.wildcard)
			continue;
		if (asprintf(&n, "%s %s:%d", hosts, hp.name, hp.port ? hp.port :
		    443) == -1) {
			free(hosts);
			return NULL;
		}
		free(hosts);
		hosts = n;
	}
	if (asprintf(&out, "%sPHOSTS='%s' PHOME='%s'\n%s", script, hosts,
	    b->home_persistent ? "a home folder of the provider, kept between "
	    "sessions" : "an empty home folder for each session",
	    sandbox_check_provider_tail) == -1)
		out = NULL;
	free(hosts);
	return out;
}

/* Append the "PSTEP" lines of the script's output to steps. */
void
sandbox_check_provider_parse(json_t *steps, const char *out)
{
	char *copy = strdup(out ? out : ""), *line, *save = NULL, *f[4], *t;
	int k, seen = 0;

	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		for (k = 0, t = line; k < 4 && t != NULL; k++) {
			f[k] = t;
			if (k < 3 && (t = strchr(t, '\t')) != NULL)
				*t++ = '\0';
		}
		if (k < 4 || t == NULL || strcmp(f[0], "PSTEP") != 0)
			continue;
		seen++;
		json_array_append_new(steps, json_pack("{s:s, s:s, s:b, s:s}",
		    "id", f[1], "step", strcmp(f[1], "provider_hosts") == 0 ?
		    "provider's hosts" : "provider's home", "ok",
		    strcmp(f[2], "ok") == 0, "detail", f[3]));
	}
	free(copy);
	if (seen == 0)
		json_array_append_new(steps, json_pack("{s:s, s:s, s:b, s:s}",
		    "id", "provider_hosts", "step", "provider's hosts", "ok", 0,
		    "detail", "no answer from the test script"));
}

/* The path a name of the aside folder stands for ('%' for '/', without
 * the ".TIME" it ends with), in buf. */
static const char *
sandbox_check_provider_unflat(const char *flat, char *buf, size_t len)
{
	char *p;

	snprintf(buf, len, "%s", flat);
	if ((p = strrchr(buf, '.')) != NULL && p != buf &&
	    strspn(p + 1, "0123456789") == strlen(p + 1))
		*p = '\0';
	for (p = buf; *p != '\0'; p++)
		if (*p == '%')
			*p = '/';
	return buf;
}

/* Add to the provider_home step of steps what was left out of provider's
 * home (the entries moved aside because they could not be bound). */
void
sandbox_check_provider_aside(json_t *steps, const char *provider)
{
	char *dir = session_provider_aside_dir(provider), *d;
	struct dirent *de;
	json_t *st, *step = NULL;
	size_t i, n = 0;
	char buf[4096], name[300];
	DIR *dp;

	json_array_foreach(steps, i, st)
		if (strcmp(json_string_value(json_object_get(st, "id")) ?
		    json_string_value(json_object_get(st, "id")) : "",
		    "provider_home") == 0)
			step = st;
	if (dir == NULL || step == NULL || (dp = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	buf[0] = '\0';
	while ((de = readdir(dp)) != NULL && n < sizeof buf - 1) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s (as %s)",
		    n ? ", " : "", sandbox_check_provider_unflat(de->d_name,
		    name, sizeof name), de->d_name);
	}
	closedir(dp);
	if (buf[0] != '\0' && asprintf(&d, "%s; left out (could not be bound: "
	    "a link, a device or a file where a folder is needed), moved "
	    "aside to %s: %s", json_string_value(
	    json_object_get(step, "detail")), dir, buf) != -1) {
		json_object_set_new(step, "detail", json_string(d));
		free(d);
	}
	free(dir);
}
