/* proxy-hosts.c: the hosts file, read again when it changes (see
 * proxy-hosts.h). */
#include "daemon/proxy/proxy-hosts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "daemon/log.h"

#define PROXY_HOSTS_MAX_BYTES (4 * 1024 * 1024)

struct proxy_hosts_entry {
	char             *name;
	struct proxy_addr addr;
};

static struct proxy_hosts_entry *proxy_hosts;
static size_t proxy_hosts_n;
static struct stat proxy_hosts_seen;	/* identity of what was read */
static int proxy_hosts_read_once;

/* The hosts file sboxd reads. */
const char *
proxy_hosts_file(void)
{
	const char *env = getenv("SBOX_HOSTS_FILE");

	return env != NULL && env[0] == '/' ? env : PROXY_HOSTS_FILE;
}

/* Forget what was read. */
void
proxy_hosts_free(void)
{
	size_t i;

	for (i = 0; i < proxy_hosts_n; i++)
		free(proxy_hosts[i].name);
	free(proxy_hosts);
	proxy_hosts = NULL;
	proxy_hosts_n = 0;
}

/* Add the names of one line "ADDR NAME [ALIAS...]" of the file. */
static void
proxy_hosts_line(char *line)
{
	struct proxy_hosts_entry *e;
	struct proxy_addr a;
	char *save = NULL, *tok, *addr;

	line[strcspn(line, "#")] = '\0';
	if ((addr = strtok_r(line, " \t\r\n", &save)) == NULL ||
	    proxy_addr_parse(addr, &a) != 1)
		return;
	while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
		if ((e = realloc(proxy_hosts, (proxy_hosts_n + 1) *
		    sizeof *e)) == NULL)
			return;
		proxy_hosts = e;
		if ((e[proxy_hosts_n].name = strdup(tok)) == NULL)
			return;
		e[proxy_hosts_n].addr = a;
		proxy_hosts_n++;
	}
}

/* Read the file again when it is not the one read last. */
static void
proxy_hosts_refresh(void)
{
	const char *path = proxy_hosts_file();
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	FILE *f;

	if (stat(path, &st) == -1)
		memset(&st, 0, sizeof st);
	if (proxy_hosts_read_once && st.st_dev == proxy_hosts_seen.st_dev &&
	    st.st_ino == proxy_hosts_seen.st_ino &&
	    st.st_size == proxy_hosts_seen.st_size &&
	    st.st_mtim.tv_sec == proxy_hosts_seen.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == proxy_hosts_seen.st_mtim.tv_nsec)
		return;
	proxy_hosts_free();
	proxy_hosts_seen = st;
	proxy_hosts_read_once = 1;
	if (!S_ISREG(st.st_mode) || st.st_size > PROXY_HOSTS_MAX_BYTES ||
	    (f = fopen(path, "re")) == NULL)
		return;
	while (getline(&line, &cap, f) != -1)
		proxy_hosts_line(line);
	free(line);
	fclose(f);
	log_debug("hosts file %s read: %zu names", path, proxy_hosts_n);
}

/* The addresses the hosts file gives name. */
size_t
proxy_hosts_lookup(const char *name, struct proxy_addr *out, size_t max)
{
	size_t i, n = 0;

	proxy_hosts_refresh();
	for (i = 0; i < proxy_hosts_n && n < max; i++)
		if (strcasecmp(proxy_hosts[i].name, name) == 0)
			out[n++] = proxy_hosts[i].addr;
	return n;
}
