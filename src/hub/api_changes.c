/* api_changes: the hub API's change feed, GET /hub/changes (api-int.h, doc/sdlc.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "core_io.h"
#include "err.h"
#include "hub/api-int.h"
#include "store/db_tracker.h"

#define CHANGES_LIMIT_DEFAULT	200
#define CHANGES_LIMIT_MAX	1000
#define CHANGES_EXAMPLE		"2026-10-22T14:05:00+03:00"

/* The kinds a client names, and what each asks of the store. */
static const struct {
	const char	*name;
	const char	*journal;	/* its journal kinds; NULL: comments */
} change_kinds[] = {
	{ "status", "status" },
	{ "description", "description" },
	{ "dates", "due,start,end" },
	{ "comment", NULL },
	{ "field", "field" },
};

/* Reads n digits of s into *v; the number of bytes read, 0 when they are not digits. */
static int
changes_digits(const char *s, int n, int *v)
{
	int	i;

	for (*v = 0, i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return n;
}

/*
 * s, "YYYY-MM-DDTHH:MM[:SS[.fraction]]" and "Z" or an offset ("+03:00",
 * "+0300"; a space stands for the "+" a query string turns into one), as
 * UTC seconds: 0, or -1 when it is not such a time, -2 when it has no offset.
 */
static int
changes_time(const char *s, time_t *t)
{
	struct tm	 tm;
	int		 y, mo, d, h, mi, sec = 0, oh, om = 0, sign;
	const char	*p = s;

	memset(&tm, 0, sizeof tm);
	if (!changes_digits(p, 4, &y) || p[4] != '-' || !changes_digits(p + 5, 2, &mo) ||
	    p[7] != '-' || !changes_digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != 't') ||
	    !changes_digits(p + 11, 2, &h) || p[13] != ':' || !changes_digits(p + 14, 2, &mi))
		return -1;
	p += 16;
	if (*p == ':') {
		if (!changes_digits(p + 1, 2, &sec))
			return -1;
		p += 3;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*t = timegm(&tm);
	if (*p == '\0')
		return -2;
	if ((*p == 'Z' || *p == 'z') && p[1] == '\0')
		return 0;
	if (*p != '+' && *p != ' ' && *p != '-')
		return -1;
	sign = *p++ == '-' ? 1 : -1;
	if (!changes_digits(p, 2, &oh))
		return -1;
	p += 2;
	if (*p == ':')
		p++;
	if ((*p != '\0' && (!changes_digits(p, 2, &om) || p[2] != '\0')) || oh > 23 || om > 59)
		return -1;
	*t += sign * (time_t)(oh * 3600 + om * 60);
	return 0;
}

/*
 * The query's time name into t and sql (now when absent and optional: then
 * *given is 0); 0, or -1 refused.
 */
static int
changes_when(const char *query, const char *name, int *given, time_t *t, char *sql,
    size_t len, struct core_response *resp)
{
	char		 v[64], msg[256];
	const char	*have;
	struct tm	 tm;
	int		 bad = 0, rc = 0;

	have = hub_query(query, name, v, sizeof v, &bad);
	if (have == NULL && !bad && given == NULL) {
		snprintf(msg, sizeof msg, "нужен %s: время со смещением, например " CHANGES_EXAMPLE,
		    name);
		hub_refuse_msg(resp, 422, msg);
		return -1;
	}
	if (bad || (have != NULL && (rc = changes_time(v, t)) != 0)) {
		hub_say(msg, sizeof msg, rc == -2 ? "%s: время без смещения: «%s»; укажите его, "
		    "например " CHANGES_EXAMPLE : "%s: не время вида " CHANGES_EXAMPLE ": «%s»",
		    name, bad ? "…" : v);
		hub_refuse_msg(resp, 422, msg);
		return -1;
	}
	if (have == NULL)
		*t = time(NULL);
	if (given != NULL)
		*given = have != NULL;
	gmtime_r(t, &tm);
	strftime(sql, len, "%Y-%m-%d %H:%M:%S", &tm);
	return 0;
}

/* kinds ("status,comment"; NULL: all) into p's journal kinds (in buf) and comments flag. */
static int
changes_kinds(const char *kinds, struct tracker_period *p, char *buf, size_t len,
    struct core_response *resp)
{
	char		 msg[256];
	const char	*k = kinds != NULL ? kinds : "status,description,dates,comment,field";
	size_t		 n, i, o = 0;

	buf[0] = '\0';
	p->comments = 0;
	while (*k != '\0') {
		n = strcspn(k, ",");
		for (i = 0; i < sizeof change_kinds / sizeof change_kinds[0]; i++)
			if (strlen(change_kinds[i].name) == n &&
			    strncmp(change_kinds[i].name, k, n) == 0)
				break;
		if (i == sizeof change_kinds / sizeof change_kinds[0]) {
			hub_say(msg, sizeof msg, "kinds: неизвестный вид «%.*s»; виды: status, "
			    "description, dates, comment, field", (int)n, k);
			hub_refuse_msg(resp, 422, msg);
			return -1;
		}
		if (change_kinds[i].journal == NULL)
			p->comments = 1;
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "",
			    change_kinds[i].journal);
		k += n + (k[n] == ',');
	}
	return 0;
}

void
hub_changes(struct db *db, const char *query, struct core_response *resp)
{
	struct tracker_period	 p = { 0 };
	struct json_object	*o;
	struct err		 e;
	char			 since[32], until[32], project[HUB_QUERY_MAX], key[100],
				 kinds[HUB_QUERY_MAX], journal[64], lim[16], *end;
	time_t			 t0, t1;
	long			 limit = CHANGES_LIMIT_DEFAULT;
	int			 rc, bad = 0, until_given;

	if (changes_when(query, "since", NULL, &t0, since, sizeof since, resp) != 0 ||
	    changes_when(query, "until", &until_given, &t1, until, sizeof until, resp) != 0)
		return;
	if (t1 <= t0) {
		hub_refuse_msg(resp, 422, "until должен быть позже since");
		return;
	}
	p.project = hub_query(query, "project", project, sizeof project, &bad);
	p.key = hub_query(query, "key", key, sizeof key, &bad);
	if (hub_query(query, "limit", lim, sizeof lim, &bad) != NULL &&
	    ((limit = strtol(lim, &end, 10)) < 1 || limit > CHANGES_LIMIT_MAX || *end != '\0')) {
		hub_refuse(resp, 422, HT_HUB_BAD_LIMIT, lim);
		return;
	}
	if (bad) {
		hub_refuse_msg(resp, 422, "значение параметра запроса слишком длинное или с NUL");
		return;
	}
	if (changes_kinds(hub_query(query, "kinds", kinds, sizeof kinds, &bad), &p, journal,
	    sizeof journal, resp) != 0)
		return;
	p.since = since;
	/* without until, up to now: an event of this very second is in */
	p.until = until_given ? until : NULL;
	p.journal_kinds = journal;
	p.limit = (int)limit;
	err_clear(&e);
	if ((rc = tracker_changes(db, &o, &p, &e)) == ERR_NOTFOUND) {
		if (p.key != NULL)
			hub_refuse(resp, 404, HT_NO_ISSUE, p.key);
		else
			hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, p.project);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	since[10] = until[10] = 'T';
	strcat(since, "Z");
	strcat(until, "Z");
	json_object_object_add(o, "since", json_object_new_string(since));
	json_object_object_add(o, "until", json_object_new_string(until));
	core_response_json(resp, 200, o);
}
