/* suggest.h: "did you mean": the closest of a list of names to a word (a
 * typo of a profile name, a config key, an option). No I/O. */
#ifndef SBOX_POLICY_SUGGEST_H
#define SBOX_POLICY_SUGGEST_H

/* The closest of names (NULL-terminated) to word, or NULL when none is
 * close: an edit distance (insert, delete, replace, swap) of at most 2 (1
 * for words of 2 letters or less), or word being a prefix of 3 letters or
 * more. */
const char *suggest_closest(const char *word, const char *const *names);

#endif
