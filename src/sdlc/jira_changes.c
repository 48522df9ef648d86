/* jira_changes: the change feed (`changes`) and the card's «изменения» (jira-int.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/jira-int.h"
#include "sdlc/sdlc.h"

#define CHANGES_COMMENT_MAX	200	/* code points of a comment in an event */
#define CHANGES_VALUE_MAX	80	/* code points of another field's value */
#define CHANGES_SUMMARY_MAX	80	/* code points of the summary */
#define CHANGES_CARD		5	/* events in the card */

/* The names the local backend journals its fields under, as the card shows them. */
static const struct {
	const char	*field, *shown;
} change_names[] = {
	{ "summary", "тема" }, { "assignee", "исполнитель" }, { "priority", "приоритет" },
	{ "story_points", "SP" }, { "sprint", "спринт" },
};

/* utc "YYYY-MM-DDTHH:MM:SSZ" as seconds; -1 when it is not one. */
static time_t
changes_utc(const char *utc)
{
	struct tm	tm;

	memset(&tm, 0, sizeof tm);
	if (utc == NULL || strptime(utc, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL)
		return (time_t)-1;
	return timegm(&tm);
}

/* A date value: "ДД.ММ" when it starts "YYYY-MM-DD", as it is otherwise, «—» when empty. */
static void
changes_date(struct buf *out, const char *v)
{
	int	y, m, d;

	if (v == NULL || v[0] == '\0')
		buf_puts(out, "—");
	else if (strlen(v) >= 10 && sscanf(v, "%4d-%2d-%2d", &y, &m, &d) == 3 && v[4] == '-')
		buf_printf(out, "%02d.%02d", d, m);
	else
		buf_puts(out, v);
}

/* «было» → «стало», each cut to max (0: whole); «—» for an empty one. */
static void
changes_values(struct buf *out, const char *from, const char *to, size_t max)
{
	const char	*v[2] = { from, to };
	int		 i;

	for (i = 0; i < 2; i++) {
		if (i)
			buf_puts(out, " → ");
		if (v[i] == NULL || v[i][0] == '\0') {
			buf_puts(out, "—");
			continue;
		}
		buf_puts(out, "«");
		sdlc_cut(out, v[i], max != 0 ? max : SIZE_MAX, 1);
		buf_puts(out, "»");
	}
}

/*
 * One event: "[ДД.ММ ]ЧЧ:ММ автор: <что>"; the date is there when dated or
 * when the event is not on the day today (local time).
 */
static void
changes_event(struct buf *out, struct json_object *ev, int dated, const struct tm *today)
{
	static const char *const dates[][2] = {
		{ "due", "срок" }, { "start", "плановое начало" }, { "end", "плановое окончание" } };
	const char	*kind = sdlc_str(ev, "kind", ""), *field = sdlc_str(ev, "field", "");
	const char	*from = sdlc_str(ev, "from", NULL), *to = sdlc_str(ev, "to", NULL);
	time_t		 t = changes_utc(sdlc_str(ev, "at", NULL));
	struct tm	 tm;
	char		 s[32];
	size_t		 i;

	if (t != (time_t)-1) {
		localtime_r(&t, &tm);
		strftime(s, sizeof s, dated || tm.tm_yday != today->tm_yday ||
		    tm.tm_year != today->tm_year ? "%d.%m %H:%M" : "%H:%M", &tm);
		buf_puts(out, s);
	} else
		buf_puts(out, sdlc_str(ev, "at", "—"));
	buf_printf(out, " %s: ", sdlc_str(ev, "author", "—"));
	if (strcmp(kind, "status") == 0) {
		buf_puts(out, "статус ");
		changes_values(out, from, to, 0);
		return;
	}
	if (strcmp(kind, "description") == 0) {
		buf_puts(out, "описание изменено");
		return;
	}
	if (strcmp(kind, "comment") == 0) {
		buf_puts(out, "комментарий: ");
		sdlc_cut(out, to != NULL ? to : "", CHANGES_COMMENT_MAX, 1);
		return;
	}
	for (i = 0; i < sizeof dates / sizeof dates[0]; i++)
		if (strcmp(kind, dates[i][0]) == 0) {
			buf_printf(out, "%s ", dates[i][1]);
			changes_date(out, from);
			buf_puts(out, " → ");
			changes_date(out, to);
			return;
		}
	for (i = 0; i < sizeof change_names / sizeof change_names[0]; i++)
		if (strcmp(field, change_names[i].field) == 0)
			field = change_names[i].shown;
	buf_printf(out, "%s: ", field);
	changes_values(out, from, to, CHANGES_VALUE_MAX);
}

void
jira_card_changes(struct buf *out, struct json_object *it)
{
	struct json_object	*a = sdlc_array(it, "changes");
	size_t			 i, n;
	time_t			 now = time(NULL);
	struct tm		 today;

	n = (size_t)json_object_get_uint64(json_object_object_get(it, "change_count"));
	if (n == 0)
		return;
	localtime_r(&now, &today);
	buf_printf(out, "\nизменения (%zu):", n);
	for (i = 0; i < CHANGES_CARD && i < json_object_array_length(a); i++) {
		buf_putc(out, '\n');
		changes_event(out, json_object_array_get_idx(a, i), 1, &today);
	}
	if (n > CHANGES_CARD) {
		buf_putc(out, '\n');
		sdlc_say(out, HT_MORE, n - CHANGES_CARD);
	}
}

/*
 * A time argument as the hub wants it: one with an offset ("Z", "+03:00")
 * as it is; a local one ("2026-10-22", "2026-10-22T14:05[:00]", a space
 * for the T) with the local offset.  NULL when it is neither (the hub's
 * refusal then names it: it is sent as it is).
 */
static void
changes_arg(struct buf *q, const char *name, const char *v)
{
	static const char *const shapes[] = { "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
	    "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d" };
	struct tm	 tm;
	const char	*end = NULL;
	char		 s[40], *x;
	size_t		 i;
	time_t		 t;

	for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		memset(&tm, 0, sizeof tm);
		if ((end = strptime(v, shapes[i], &tm)) != NULL && *end == '\0')
			break;
	}
	if (i < sizeof shapes / sizeof shapes[0]) {
		tm.tm_isdst = -1;
		t = mktime(&tm);
		localtime_r(&t, &tm);
		strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S%z", &tm);
		/* "+0300" -> "+03:00" */
		i = strlen(s);
		memmove(s + i - 1, s + i - 2, 3);
		s[i - 2] = ':';
		v = s;
	}
	if ((x = hub_escape(v)) != NULL)
		buf_printf(q, "&%s=%s", name, x);
	free(x);
}

/* The events grouped by issue: issues by their latest event, each newest first. */
static void
changes_groups(struct buf *out, struct json_object *events)
{
	struct json_object	*ev, *first;
	size_t			 i, j, n = json_object_array_length(events);
	char			*done;
	time_t			 now = time(NULL);
	struct tm		 today;

	localtime_r(&now, &today);
	if ((done = calloc(n + 1, 1)) == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		first = json_object_array_get_idx(events, i);
		buf_printf(out, "\n%s ", sdlc_str(first, "key", ""));
		sdlc_cut(out, sdlc_str(first, "summary", ""), CHANGES_SUMMARY_MAX, 1);
		buf_printf(out, " — %s", sdlc_str(first, "status", "—"));
		for (j = i; j < n; j++) {
			ev = json_object_array_get_idx(events, j);
			if (done[j] || strcmp(sdlc_str(ev, "key", ""), sdlc_str(first, "key", "")) != 0)
				continue;
			done[j] = 1;
			buf_putc(out, '\n');
			changes_event(out, ev, 0, &today);
		}
	}
	free(done);
}

int
jira_changes(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *v, *events;
	struct buf		 q;
	const char		*key = NULL, *since = NULL;
	char			*x;
	time_t			 t;
	struct tm		 tm;
	char			 s[40];
	int			 rc;

	if (json_object_object_get_ex(args, "key", &v))
		key = json_object_get_string(v);
	if (json_object_object_get_ex(args, "since", &v))
		since = json_object_get_string(v);
	if (since != NULL && json_object_object_get_ex(args, "hours", &v)) {
		buf_puts(ctx->out, "либо hours, либо since");
		return 1;
	}
	if (key == NULL && ctx->project == NULL) {
		sdlc_say(ctx->out, HT_UNBOUND);
		return 1;
	}
	buf_init(&q);
	buf_puts(&q, "/changes?");
	x = hub_escape(key != NULL ? key : ctx->project);
	buf_printf(&q, "%s=%s", key != NULL ? "key" : "project", x != NULL ? x : "");
	free(x);
	if (since == NULL) {
		/* the start of the day today, or hours back from now */
		t = time(NULL);
		if (json_object_object_get_ex(args, "hours", &v))
			t -= (time_t)(json_object_get_double(v) * 3600);
		localtime_r(&t, &tm);
		if (!json_object_object_get_ex(args, "hours", &v))
			tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S", &tm);
		changes_arg(&q, "since", s);
	} else
		changes_arg(&q, "since", since);
	if (json_object_object_get_ex(args, "until", &v))
		changes_arg(&q, "until", json_object_get_string(v));
	if (json_object_object_get_ex(args, "kinds", &v) && (x = hub_escape(
	    json_object_get_string(v))) != NULL) {
		buf_printf(&q, "&kinds=%s", x);
		free(x);
	}
	if (q.oom || (rc = sdlc_hub(ctx, "GET", q.data, NULL, &o)) != 0) {
		rc = q.oom ? 1 : rc;
		buf_release(&q);
		return rc;
	}
	buf_release(&q);
	buf_puts(ctx->out, "изменения с ");
	sdlc_time(ctx->out, sdlc_str(o, "since", NULL), 1);
	buf_puts(ctx->out, " по ");
	sdlc_time(ctx->out, sdlc_str(o, "until", NULL), 1);
	events = sdlc_array(o, "events");
	if (json_object_array_length(events) == 0)
		buf_puts(ctx->out, "\nза период изменений нет");
	changes_groups(ctx->out, events);
	if (json_object_get_boolean(json_object_object_get(o, "truncated")))
		buf_printf(ctx->out, "\nпоказаны последние %zu событий, сузьте период",
		    json_object_array_length(events));
	json_object_put(o);
	return 0;
}
