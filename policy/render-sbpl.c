/* render-sbpl.c: the plan as a Seatbelt profile (macOS). */
#include "policy/render-sbpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write s as an SBPL string literal. */
static void
render_sbpl_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Write a path filter: (subpath "x") for folders, (literal "x") for files. */
static void
render_sbpl_filter(FILE *f, const char *path, int is_dir)
{
	fputs(is_dir ? " (subpath " : " (literal ", f);
	render_sbpl_quote(f, path);
	fputc(')', f);
}

/* The macOS spelling of a path (/tmp and /var live under /private). */
static const char *
render_sbpl_path(const char *path, char *buf, size_t len)
{
	if (strcmp(path, "/tmp") == 0 || strncmp(path, "/tmp/", 5) == 0 ||
	    strcmp(path, "/var") == 0 || strncmp(path, "/var/", 5) == 0 ||
	    strcmp(path, "/etc") == 0 || strncmp(path, "/etc/", 5) == 0) {
		snprintf(buf, len, "/private%s", path);
		return buf;
	}
	return path;
}

/* The SBPL text for plan p. */
char *
render_sbpl(const struct plan *p, int proxy_port, sbox_error *err)
{
	const struct plan_mount *m;
	char *out = NULL, buf[4200];
	size_t len = 0, i;
	FILE *f;

	if (!p->sandboxed) {
		error_set(err, E_INVALID_PARAMS, "an unsandboxed plan has no Seatbelt profile");
		return NULL;
	}
	if ((f = open_memstream(&out, &len)) == NULL) {
		error_nomem(err);
		return NULL;
	}
	fputs("(version 1)\n(deny default)\n", f);
	fputs("(allow process-fork process-exec)\n(allow signal (target same-sandbox))\n", f);
	fputs("(allow sysctl-read)\n(allow file-read-metadata)\n", f);
	fputs("(allow ipc-posix-shm ipc-posix-sem)\n", f);
	fputs("(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\")"
	    " (global-name \"com.apple.system.logger\"))\n", f);
	fputs("(allow file-read* file-write-data (literal \"/dev/null\") (literal \"/dev/zero\")"
	    " (literal \"/dev/tty\") (literal \"/dev/dtracehelper\"))\n", f);
	fputs("(allow file-read* (literal \"/dev/random\") (literal \"/dev/urandom\")"
	    " (subpath \"/System\") (subpath \"/Library\") (subpath \"/private/var/db/timezone\")"
	    " (literal \"/\"))\n", f);
	fputs(";; grants\n", f);
	for (i = 0; i < p->n_mounts; i++) {
		m = &p->mounts[i];
		if (m->missing)
			continue;
		/* Seatbelt cannot show one path at another: a bind from
		 * elsewhere (sbox's own caches) grants nothing, and the host's
		 * path stays out of reach */
		if ((m->kind == PLAN_MOUNT_RO_BIND || m->kind == PLAN_MOUNT_RW_BIND) &&
		    m->src != NULL && strcmp(m->src, m->dst) != 0)
			continue;
		if (m->kind == PLAN_MOUNT_RO_BIND) {
			fputs("(allow file-read*", f);
			render_sbpl_filter(f, render_sbpl_path(m->dst, buf, sizeof buf), m->is_dir);
			fputs(")\n", f);
		} else if (m->kind == PLAN_MOUNT_RW_BIND ||
		    (m->kind == PLAN_MOUNT_TMPFS && m->rule != NULL &&
		    strcmp(m->rule, PLAN_RULE_TMP) == 0)) {
			fputs("(allow file-read* file-write*", f);
			render_sbpl_filter(f, render_sbpl_path(m->dst, buf, sizeof buf), 1);
			fputs(")\n", f);
		}
	}
	fputs(";; protected and hidden paths: last, so they win\n", f);
	for (i = 0; i < p->n_mounts; i++) {
		m = &p->mounts[i];
		if (m->kind == PLAN_MOUNT_RO_BIND && m->rule != NULL &&
		    strcmp(m->rule, PLAN_RULE_RUNS_LATER) == 0) {
			fputs("(deny file-write*", f);
			render_sbpl_filter(f, render_sbpl_path(m->dst, buf, sizeof buf),
			    m->is_dir || m->missing);
			fputs(")\n", f);
		} else if (m->kind == PLAN_MOUNT_HIDE_DIR || m->kind == PLAN_MOUNT_HIDE_FILE) {
			fputs("(deny file-read* file-write*", f);
			render_sbpl_filter(f, render_sbpl_path(m->dst, buf, sizeof buf),
			    m->kind == PLAN_MOUNT_HIDE_DIR || m->missing);
			fputs(")\n", f);
		}
	}
	for (i = 0; i < p->n_rules; i++) {
		if (p->rules[i].access != PLAN_ACCESS_HIDDEN || p->rules[i].rule == NULL ||
		    (strcmp(p->rules[i].rule, PLAN_RULE_CREDENTIALS) != 0 &&
		    strcmp(p->rules[i].rule, PLAN_RULE_SBOX) != 0 &&
		    strcmp(p->rules[i].rule, PLAN_RULE_PROFILE_DENY) != 0))
			continue;
		fputs("(deny file-read* file-write*", f);
		render_sbpl_filter(f, render_sbpl_path(p->rules[i].path, buf, sizeof buf), 1);
		fputs(")\n", f);
	}
	fputs(";; network: the proxy and the profile's local ports only\n", f);
	fputs("(deny network*)\n", f);
	fprintf(f, "(allow network-outbound (remote ip \"localhost:%d\"))\n", proxy_port);
	for (i = 0; i < p->net.n_local_ports; i++)
		fprintf(f, "(allow network-outbound (remote ip \"localhost:%d\"))\n",
		    p->net.local_ports[i]);
	fputs("(allow network-bind network-inbound (local ip \"localhost:*\"))\n", f);
	fputs(";; no other app driven or started\n", f);
	fputs("(deny appleevent-send)\n", f);
	fputs("(deny mach-lookup (global-name \"com.apple.coreservices.launchservicesd\")"
	    " (global-name \"com.apple.lsd.mapdb\") (global-name \"com.apple.lsd.modifydb\")"
	    " (global-name \"com.apple.coreservices.appleevents\"))\n", f);
	if (fclose(f) != 0 || out == NULL) {
		free(out);
		error_nomem(err);
		return NULL;
	}
	return out;
}
