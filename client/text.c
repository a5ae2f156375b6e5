/* text.c: the one way the CLI prints text that a sandbox or a client chose
 * (session titles, project folders, reasons, argv, hosts, paths, blocked
 * entries, event data). Nothing in it may drive the person's terminal:
 * control characters (C0, DEL, C1: ESC, CSI 0x9b, OSC 0x9d), so no escape
 * sequence can start; bidirectional overrides, embeddings, isolates and
 * marks; line and paragraph separators; zero-width and other invisible
 * format characters; and bytes that are not UTF-8, are shown escaped
 * (\x1b, \n, \u202e, \xff). Everything else is printed as it is. --json
 * output never goes through it: it stays exact. */
#include "client/client.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_RING 16   /* text_show() results alive at once */

/* The code point of the UTF-8 character at s (at most n bytes) and its
 * length in *len; -1 when the bytes are not UTF-8 (overlong, surrogate,
 * beyond U+10FFFF, cut short), with *len 1. */
static long
text_decode(const unsigned char *s, size_t n, size_t *len)
{
	uint32_t cp;
	size_t k, i;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		k = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		k = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		k = 4;
		cp = s[0] & 0x07;
	} else
		return -1;
	if (n < k)
		return -1;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = k;
	return (long)cp;
}

/* Is code point cp one that must not reach a terminal as it is? */
int
text_is_unsafe(long cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return 1;		/* C0, DEL, C1 */
	return cp == 0xad ||		/* soft hyphen */
	    cp == 0x34f ||		/* combining grapheme joiner */
	    cp == 0x61c ||		/* arabic letter mark */
	    cp == 0x180e ||		/* mongolian vowel separator */
	    (cp >= 0x200b && cp <= 0x200f) ||	/* zero-width, LRM, RLM */
	    (cp >= 0x2028 && cp <= 0x202e) ||	/* separators, embeddings,
						   overrides */
	    (cp >= 0x2060 && cp <= 0x206f) ||	/* word joiner, invisible
						   operators, isolates */
	    cp == 0xfeff ||			/* zero-width no-break space */
	    (cp >= 0xfff9 && cp <= 0xfffb) ||	/* interlinear annotation */
	    (cp >= 0xe0000 && cp <= 0xe007f);	/* tags */
}

/* Append n bytes to a growing string; -1 on ENOMEM. */
static int
text_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	char *nb;

	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap + n + 1) * 2;
		if ((nb = realloc(*buf, ncap)) == NULL)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* n bytes of s, safe to print (caller frees); NULL on ENOMEM. */
char *
text_safen(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *buf = NULL, esc[16];
	size_t len = 0, cap = 0, k, i = 0;
	long cp;

	if (text_put(&buf, &len, &cap, "", 0) == -1)
		return NULL;
	while (s != NULL && i < n) {
		cp = text_decode(p + i, n - i, &k);
		if (cp >= 0 && !text_is_unsafe(cp)) {
			if (text_put(&buf, &len, &cap, s + i, k) == -1)
				goto fail;
			i += k;
			continue;
		}
		if (cp == '\n')
			snprintf(esc, sizeof esc, "\\n");
		else if (cp == '\t')
			snprintf(esc, sizeof esc, "\\t");
		else if (cp == '\r')
			snprintf(esc, sizeof esc, "\\r");
		else if (cp < 0 || cp < 0x80)
			snprintf(esc, sizeof esc, "\\x%02x", p[i]);
		else if (cp <= 0xffff)
			snprintf(esc, sizeof esc, "\\u%04lx", cp);
		else
			snprintf(esc, sizeof esc, "\\U%08lx", cp);
		if (text_put(&buf, &len, &cap, esc, strlen(esc)) == -1)
			goto fail;
		i += k;
	}
	return buf;
fail:
	free(buf);
	return NULL;
}

/* s (NULL: "") safe to print; caller frees ("?" when out of memory). */
char *
text_safe(const char *s)
{
	char *t = text_safen(s, s != NULL ? strlen(s) : 0);

	return t != NULL ? t : strdup("?");
}

/* s safe to print, for a printf argument: the string stays valid until
 * TEXT_RING more calls (NULL stays NULL, for "%s" callers that check). */
const char *
text_show(const char *s)
{
	static char *ring[TEXT_RING];
	static unsigned next;
	char **slot;

	if (s == NULL)
		return NULL;
	slot = &ring[next++ % TEXT_RING];
	free(*slot);
	if ((*slot = text_safe(s)) == NULL)
		return "?";
	return *slot;
}

/* A JSON string member of o, safe to print (dflt when absent). */
const char *
text_member(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? text_show(s) : dflt;
}
