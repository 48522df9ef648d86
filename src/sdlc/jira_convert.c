/*
 * jira_convert: what the Jira backend's refresh reads, in the hub's shape
 * (jira_backend-int.h): an issue of Jira's search (its fields, comments,
 * attachments, links, changelog) as a fixture issue, times in UTC and
 * values cut to what the mirror's columns hold.  What it reads is Jira's
 * answer, any shape: a member of another type is taken as absent.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <json-c/json.h>

#include "json.h"
#include "sdlc/jira_backend.h"
#include "sdlc/jira_backend-int.h"

/* A Jira time (2026-11-01T10:00:00.000+0300) as the hub's UTC one into out[21]; NULL if not one. */
static const char *
jr_time(const char *s, char *out)
{
	struct tm	 tm;
	int		 y, mo, d, h, mi, sec, n = 0, oh = 0, om = 0;
	time_t		 t;
	const char	*z;

	if (s == NULL || strspn(s, "0123456789") != 4 || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n",
	    &y, &mo, &d, &h, &mi, &sec, &n) != 6 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return NULL;
	z = s + n;
	if (*z == '.')
		z += 1 + strspn(z + 1, "0123456789");
	if ((*z == '+' || *z == '-') && (sscanf(z + 1, "%2d:%2d", &oh, &om) == 2 ||
	    sscanf(z + 1, "%2d%2d", &oh, &om) == 2)) {
		if (*z == '-') {
			oh = -oh;
			om = -om;
		}
	} else if (*z != 'Z' && *z != '\0')
		return NULL;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm) - (time_t)oh * 3600 - (time_t)om * 60;
	/* the hub's times have four digits of a year (MariaDB's DATETIME: 1000 to 9999) */
	if (gmtime_r(&t, &tm) == NULL || tm.tm_year + 1900 < 1000 || tm.tm_year + 1900 > 9999)
		return NULL;
	strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return out;
}

/* A person of Jira: the login, else the name shown. */
static const char *
jr_person(struct json_object *o)
{
	return json_get_str(o, "name") != NULL ? json_get_str(o, "name") :
	    json_get_str(o, "displayName");
}

void
jb_add(struct json_object *o, const char *key, const char *s)
{
	if (s != NULL)
		json_object_object_add(o, key, json_object_new_string(s));
}

/* Adds key: s cut to its first max characters, what the hub's column holds. */
static void
jr_add_cut(struct json_object *o, const char *key, const char *s, size_t max)
{
	if (s != NULL)
		json_object_object_add(o, key, json_object_new_string_len(s,
		    (int)json_utf8_take(s, strlen(s), max, NULL)));
}

void
jb_add_day(struct json_object *o, const char *key, const char *s)
{
	static const char	 shape[] = "dddd-dd-dd";
	size_t			 i;

	for (i = 0; s != NULL && shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return;
	if (s != NULL)
		json_object_object_add(o, key, json_object_new_string_len(s, 10));
}

/* An id Jira sends as a string ("10001"): its number, 0 when it is not one. */
static int64_t
jr_id(struct json_object *o)
{
	const char	*s = json_get_str(o, "id");
	char		*end;
	long long	 v;

	if (s == NULL || *s < '1' || *s > '9')
		return 0;
	v = strtoll(s, &end, 10);
	return *end == '\0' ? v : 0;
}

/*
 * The sprint an issue is in, from the Sprint field: objects {name, state},
 * or Jira Server's strings "…Sprint@1a2b[id=3,…,state=ACTIVE,name=Спринт 1,
 * startDate=…]": an active one, else a future one, else the last.
 */
static void
jr_sprint(struct json_object *v, char *out, size_t len)
{
	static const char *const after[] = { ",startDate=", ",endDate=", ",completeDate=",
	    ",activatedDate=", ",sequence=", ",goal=", ",synced=", ",autoStartStop=", "]", NULL };
	struct json_object	*s;
	const char		*str, *name, *state, *end, *e;
	size_t			 i, k;
	int			 rank, best = -1;

	out[0] = '\0';
	for (i = 0; json_object_is_type(v, json_type_array) && i < json_object_array_length(v);
	    i++) {
		s = json_object_array_get_idx(v, i);
		if (json_object_is_type(s, json_type_object)) {
			name = json_get_str(s, "name");
			state = json_get_str(s, "state");
			end = name != NULL ? name + strlen(name) : NULL;
		} else {
			str = json_object_get_string(s);
			state = str != NULL ? strstr(str, "state=") : NULL;
			if (state != NULL)
				state += 6;
			if ((name = str != NULL ? strstr(str, ",name=") : NULL) == NULL)
				continue;
			name += 6;
			end = name + strlen(name);
			for (k = 0; after[k] != NULL; k++)
				if ((e = strstr(name, after[k])) != NULL && e < end)
					end = e;
		}
		if (name == NULL)
			continue;
		rank = state == NULL ? 0 : strncasecmp(state, "active", 6) == 0 ? 2 :
		    strncasecmp(state, "future", 6) == 0 ? 1 : 0;
		if (rank >= best) {
			best = rank;
			snprintf(out, len, "%.*s", (int)(end - name), name);
		}
	}
}

/* Whether text refers to the attachment name: !name or [^name] (Jira's wiki markup). */
static int
jr_refers(const char *text, const char *name)
{
	char	pat[300];

	if (text == NULL || name == NULL)
		return 0;
	snprintf(pat, sizeof pat, "!%s", name);
	if (strstr(text, pat) != NULL)
		return 1;
	snprintf(pat, sizeof pat, "[^%s]", name);
	return strstr(text, pat) != NULL;
}

/* The changelog's items as the hub's journal entries. */
static struct json_object *
jr_changes(struct json_object *changelog)
{
	static const struct {
		const char	*jira, *kind, *field;
	} kinds[] = {
		{ "status", "status", NULL }, { "description", "description", NULL },
		{ "duedate", "due", NULL }, { "Start date", "start", NULL },
		{ "Target start", "start", NULL }, { "End date", "end", NULL },
		{ "Target end", "end", NULL }, { "Story Points", "field", "story_points" },
		{ "Sprint", "field", "sprint" },
	};
	struct json_object	*out = json_object_new_array(), *hs, *h, *items, *it, *c;
	const char		*field;
	char			 at[21];
	size_t			 i, j, k;

	hs = json_get(changelog, "histories");
	for (i = 0; json_object_is_type(hs, json_type_array) && i < json_object_array_length(hs);
	    i++) {
		h = json_object_array_get_idx(hs, i);
		items = json_get(h, "items");
		if (jr_time(json_get_str(h, "created"), at) == NULL ||
		    !json_object_is_type(items, json_type_array))
			continue;
		for (j = 0; j < json_object_array_length(items); j++) {
			it = json_object_array_get_idx(items, j);
			if ((field = json_get_str(it, "field")) == NULL)
				continue;
			c = json_object_new_object();
			jb_add(c, "at", at);
			jr_add_cut(c, "author", jr_person(json_get(h, "author")) != NULL ?
			    jr_person(json_get(h, "author")) : "?", 255);
			for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
				if (strcmp(kinds[k].jira, field) == 0)
					break;
			jb_add(c, "kind", k < sizeof kinds / sizeof kinds[0] ? kinds[k].kind :
			    "field");
			if (k == sizeof kinds / sizeof kinds[0] || kinds[k].field != NULL)
				jr_add_cut(c, "field", k < sizeof kinds / sizeof kinds[0] ?
				    kinds[k].field : field, 255);
			/* the journal keeps 4,000 characters of a value */
			jr_add_cut(c, "from", json_get_str(it, "fromString"), 4000);
			jr_add_cut(c, "to", json_get_str(it, "toString"), 4000);
			json_object_array_add(out, c);
		}
	}
	return out;
}

/* The issue's comments, attachments and links in the hub's shape, added to o. */
static void
jr_parts(struct json_object *o, struct json_object *f, const char *description)
{
	struct json_object	*list, *c, *a, *l, *out, *refs, *other;
	const char		*name;
	char			 at[21], up[21];
	size_t			 i, j;

	list = json_get(json_get(f, "comment"), "comments");
	out = json_object_new_array();
	for (i = 0; json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list); i++) {
		c = json_object_array_get_idx(list, i);
		if (jr_id(c) == 0 || jr_time(json_get_str(c, "created"), at) == NULL)
			continue;
		a = json_object_new_object();
		json_object_object_add(a, "id", json_object_new_int64(jr_id(c)));
		jr_add_cut(a, "author", jr_person(json_get(c, "author")) != NULL ?
		    jr_person(json_get(c, "author")) : "?", 255);
		jb_add(a, "body", json_get_str(c, "body") != NULL ? json_get_str(c, "body") : "");
		jb_add(a, "created", at);
		jb_add(a, "updated", jr_time(json_get_str(c, "updated"), up));
		json_object_array_add(out, a);
	}
	json_object_object_add(o, "comments", out);
	list = json_get(f, "attachment");
	out = json_object_new_array();
	for (i = 0; json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list); i++) {
		c = json_object_array_get_idx(list, i);
		name = json_get_str(c, "filename");
		if (jr_id(c) == 0 || name == NULL || name[0] == '\0' ||
		    jr_time(json_get_str(c, "created"), at) == NULL)
			continue;
		a = json_object_new_object();
		json_object_object_add(a, "id", json_object_new_int64(jr_id(c)));
		/* a longer name than the mirror holds is shown cut; its file keeps it */
		jr_add_cut(a, "name", name, 255);
		if (json_object_is_type(json_get(c, "size"), json_type_int) &&
		    json_object_get_int64(json_get(c, "size")) >= 0)
			json_object_object_add(a, "size", json_object_get(json_get(c, "size")));
		jr_add_cut(a, "mime", json_get_str(c, "mimeType"), 255);
		jr_add_cut(a, "author", jr_person(json_get(c, "author")) != NULL ?
		    jr_person(json_get(c, "author")) : "?", 255);
		jb_add(a, "created", at);
		json_object_object_add(a, "in_description", json_object_new_boolean(
		    jr_refers(description, name)));
		refs = json_object_new_array();
		for (j = 0; j < json_object_array_length(json_get(o, "comments")); j++) {
			l = json_object_array_get_idx(json_get(o, "comments"), j);
			if (jr_refers(json_get_str(l, "body"), name))
				json_object_array_add(refs, json_object_get(json_get(l, "id")));
		}
		json_object_object_add(a, "comments", refs);
		json_object_array_add(out, a);
	}
	json_object_object_add(o, "attachments", out);
	list = json_get(f, "issuelinks");
	out = json_object_new_array();
	for (i = 0; json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list); i++) {
		l = json_object_array_get_idx(list, i);
		c = json_get(l, "type");
		other = json_get(l, "outwardIssue");
		if (other == NULL)
			other = json_get(l, "inwardIssue");
		if (json_get_str(c, "name") == NULL || json_get_str(c, "outward") == NULL ||
		    json_get_str(c, "inward") == NULL || json_get_str(other, "key") == NULL)
			continue;
		a = json_object_new_object();
		jb_add(a, "type", json_get_str(c, "name"));
		jb_add(a, "outward", json_get_str(c, "outward"));
		jb_add(a, "inward", json_get_str(c, "inward"));
		jb_add(a, json_get(l, "outwardIssue") != NULL ? "to" : "from",
		    json_get_str(other, "key"));
		json_object_array_add(out, a);
	}
	json_object_object_add(o, "links", out);
}

struct json_object *
jb_issue_json(const struct jira_backend *jb, struct json_object *ji, int64_t rank)
{
	struct json_object	*o, *f = json_get(ji, "fields"), *v;
	char			 created[21], updated[21], sprint[1024];

	if (jr_id(ji) == 0 || json_get_str(ji, "key") == NULL ||
	    json_get_str(f, "summary") == NULL ||
	    json_get_str(json_get(f, "status"), "name") == NULL ||
	    jr_time(json_get_str(f, "created"), created) == NULL)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(jr_id(ji)));
	jb_add(o, "key", json_get_str(ji, "key"));
	jr_add_cut(o, "type", json_get_str(json_get(f, "issuetype"), "name"), 64);
	jr_add_cut(o, "summary", json_get_str(f, "summary"), 1000);
	jb_add(o, "description", json_get_str(f, "description"));
	jr_add_cut(o, "status", json_get_str(json_get(f, "status"), "name"), 64);
	jr_add_cut(o, "priority", json_get_str(json_get(f, "priority"), "name"), 64);
	jr_add_cut(o, "assignee", jr_person(json_get(f, "assignee")), 255);
	jr_add_cut(o, "reporter", jr_person(json_get(f, "reporter")), 255);
	jb_add_day(o, "due", json_get_str(f, "duedate"));
	jb_add(o, "created", created);
	jb_add(o, "updated", jr_time(json_get_str(f, "updated"), updated));
	json_object_object_add(o, "labels", json_object_is_type(json_get(f, "labels"),
	    json_type_array) ? json_object_get(json_get(f, "labels")) : json_object_new_array());
	if (jb->sp_field[0] != '\0' && ((v = json_get(f, jb->sp_field)) != NULL) &&
	    (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		json_object_object_add(o, "story_points", json_object_get(v));
	if (jb->sprint_field[0] != '\0') {
		jr_sprint(json_get(f, jb->sprint_field), sprint, sizeof sprint);
		/* snprintf cut a longer name by bytes: not inside a character */
		sprint[json_utf8_cut(sprint, strlen(sprint))] = '\0';
		if (sprint[0] != '\0')
			jr_add_cut(o, "sprint", sprint, 255);
	}
	if (rank > 0)
		json_object_object_add(o, "rank", json_object_new_int64(rank));
	jr_parts(o, f, json_get_str(f, "description"));
	json_object_object_add(o, "changes", jr_changes(json_get(ji, "changelog")));
	return o;
}
