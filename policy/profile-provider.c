/* profile-provider.c: the part of a resolved profile that comes from the
 * session's provider entry: its name, whether it keeps a home folder of its
 * own, the hosts it reaches in every network mode, and its account folders.
 * (Its env values are env_values of profile.c: stored and shown "(set)".) */
#include "policy/profile-provider.h"

#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/strv.h"

/* Free the provider part of p. */
void
profile_provider_free(struct profile *p)
{
	free(p->provider);
	strv_free(p->provider_hosts);
	strv_free(p->account_folders);
	strv_free(p->account_protect);
	strv_free(p->hidden_accounts);
	strv_free(p->account_writable);
	strv_free(p->account_signin);
	strv_free(p->account_keep);
	strv_free(p->account_private);
	strv_free(p->state_folders);
}

/* Copy the provider part of p into c (*ok = 0 on ENOMEM). */
void
profile_provider_copy(struct profile *c, const struct profile *p, int *ok)
{
	c->provider = NULL;
	if (p->provider != NULL && (c->provider = strdup(p->provider)) == NULL)
		*ok = 0;
	c->provider_hosts = strv_copy(p->provider_hosts, ok);
	c->account_folders = strv_copy(p->account_folders, ok);
	c->account_protect = strv_copy(p->account_protect, ok);
	c->hidden_accounts = strv_copy(p->hidden_accounts, ok);
	c->account_writable = strv_copy(p->account_writable, ok);
	c->account_signin = strv_copy(p->account_signin, ok);
	c->account_keep = strv_copy(p->account_keep, ok);
	c->account_private = strv_copy(p->account_private, ok);
	c->state_folders = strv_copy(p->state_folders, ok);
}

/* A JSON array of the strings of v. */
static json_t *
profile_provider_strv(char *const *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && v != NULL && v[i] != NULL; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* Add the provider keys of p to its JSON form o. */
void
profile_provider_to_json(const struct profile *p, json_t *o)
{
	json_object_set_new(o, "provider", p->provider ?
	    json_string(p->provider) : json_null());
	json_object_set_new(o, "provider_home", json_string(p->provider_home ?
	    "persistent" : "empty"));
	json_object_set_new(o, "provider_hosts",
	    profile_provider_strv(p->provider_hosts));
	json_object_set_new(o, "account_folders",
	    profile_provider_strv(p->account_folders));
	json_object_set_new(o, "account_protect",
	    profile_provider_strv(p->account_protect));
	json_object_set_new(o, "hidden_accounts",
	    profile_provider_strv(p->hidden_accounts));
	json_object_set_new(o, "account_writable",
	    profile_provider_strv(p->account_writable));
	json_object_set_new(o, "account_signin",
	    profile_provider_strv(p->account_signin));
	json_object_set_new(o, "account_keep",
	    profile_provider_strv(p->account_keep));
	json_object_set_new(o, "account_private",
	    profile_provider_strv(p->account_private));
	json_object_set_new(o, "state_folders",
	    profile_provider_strv(p->state_folders));
}

/* A stored list of strings (folders 1: absolute, normalised; 2: absolute)
 * into *out. */
static int
profile_provider_list(char ***out, const json_t *v, int folders,
    const char *f, sbox_error *err)
{
	json_t *e;
	size_t i;
	char *s;

	if (!json_is_array(v))
		return error_set_field(err, E_CONFIG, f, "must be an array");
	strv_free(*out);
	*out = NULL;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return error_set_field(err, E_CONFIG, f, "must hold strings");
		s = folders == 1 ? path_normalize(json_string_value(e), f, err) :
		    strdup(json_string_value(e));
		if (s != NULL && folders == 2 && s[0] != '/') {
			free(s);
			return error_set_field(err, E_CONFIG, f,
			    "must hold absolute paths");
		}
		if (s == NULL || strv_push(out, s) == -1)
			return error_isset(err) ? -1 : error_nomem(err);
	}
	return 0;
}

/* Apply one stored provider key: 0, -1 with err, 1 for another key. */
int
profile_provider_apply_stored(struct profile *p, const char *key,
    const json_t *v, const char *f, sbox_error *err)
{
	const char *s;

	if (strcmp(key, "provider") == 0) {
		free(p->provider);
		p->provider = NULL;
		if (json_is_null(v))
			return 0;
		if (!json_is_string(v))
			return error_set_field(err, E_CONFIG, f, "must be a string");
		if ((p->provider = strdup(json_string_value(v))) == NULL)
			return error_nomem(err);
		return 0;
	}
	if (strcmp(key, "provider_home") == 0) {
		s = json_string_value(v);
		if (s == NULL || (strcmp(s, "persistent") != 0 &&
		    strcmp(s, "empty") != 0))
			return error_set_field(err, E_CONFIG, f,
			    "must be \"persistent\" or \"empty\"");
		p->provider_home = strcmp(s, "persistent") == 0;
		return 0;
	}
	if (strcmp(key, "provider_hosts") == 0)
		return profile_provider_list(&p->provider_hosts, v, 0, f, err);
	if (strcmp(key, "account_folders") == 0)
		return profile_provider_list(&p->account_folders, v, 1, f, err);
	if (strcmp(key, "account_protect") == 0)	/* may end in '/' */
		return profile_provider_list(&p->account_protect, v, 2, f, err);
	if (strcmp(key, "hidden_accounts") == 0)
		return profile_provider_list(&p->hidden_accounts, v, 1, f, err);
	if (strcmp(key, "account_writable") == 0)	/* may end in '/' */
		return profile_provider_list(&p->account_writable, v, 2, f, err);
	if (strcmp(key, "account_signin") == 0)
		return profile_provider_list(&p->account_signin, v, 2, f, err);
	if (strcmp(key, "account_private") == 0)	/* may end in '/' */
		return profile_provider_list(&p->account_private, v, 2, f, err);
	if (strcmp(key, "account_keep") == 0)	/* "FILE\tKEY" */
		return profile_provider_list(&p->account_keep, v, 2, f, err);
	if (strcmp(key, "state_folders") == 0)
		return profile_provider_list(&p->state_folders, v, 1, f, err);
	return 1;
}
