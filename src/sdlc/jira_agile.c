/* jira_agile: the sdlc-jira tools sprints, sprint and backlog, from GET /hub/agile (jira-int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/client.h"
#include "sdlc/jira-int.h"
#include "sdlc/sdlc.h"

#define AGILE_SUMMARY_MAX	80	/* code points of a summary */

static const char *
agile_state(const char *state)
{
	return strcmp(state, "active") == 0 ? "активный" : strcmp(state, "future") == 0 ?
	    "будущий" : strcmp(state, "closed") == 0 ? "закрыт" : state;
}

/* "ДД.ММ–ДД.ММ", a «—» for a date not set. */
static void
agile_dates(struct buf *out, struct json_object *s)
{
	sdlc_date(out, sdlc_str(s, "start", NULL));
	buf_puts(out, "–");
	sdlc_date(out, sdlc_str(s, "end", NULL));
}

/* GET path?project=<session's>[extra]: the answer, or 1/SDLC_DOWN; *board whether there is one. */
static int
agile_get(struct sdlc_ctx *ctx, const char *path, const char *extra, struct json_object **o)
{
	char	*x, *url = NULL;
	int	 rc;

	if ((x = hub_escape(ctx->project)) == NULL ||
	    asprintf(&url, "%s?project=%s%s", path, x, extra) < 0) {
		free(x);
		return 1;
	}
	free(x);
	rc = sdlc_hub(ctx, "GET", url, NULL, o);
	free(url);
	if (rc == 0 && json_object_object_get(*o, "board") == NULL) {
		buf_puts(ctx->out, "у проекта нет доски");
		json_object_put(*o);
		return 1;
	}
	return rc;
}

int
jira_sprints(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *s;
	struct buf		*out = ctx->out;
	size_t			 i, n;
	int			 rc;

	(void)args;
	if ((rc = agile_get(ctx, "/agile", "", &o)) != 0)
		return rc;
	list = sdlc_array(o, "sprints");
	n = json_object_array_length(list);
	buf_puts(out, n == 0 ? "спринтов нет" : "имя | состояние | даты | задач (выполнено/всего) | "
	    "SP (выполнено/всего) | без оценки");
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(list, i);
		buf_printf(out, "\n%s | %s | ", sdlc_str(s, "name", ""),
		    agile_state(sdlc_str(s, "state", "")));
		agile_dates(out, s);
		buf_printf(out, " | %s/%s | %s/%s | %s", sdlc_str(s, "done", "0"),
		    sdlc_str(s, "issues", "0"), sdlc_str(s, "sp_done", "0"), sdlc_str(s, "sp", "0"),
		    sdlc_str(s, "unestimated", "0"));
	}
	if (json_object_get_uint64(json_object_object_get(o, "closed_more")) > 0)
		buf_printf(out, "\nещё %s закрытых", sdlc_str(o, "closed_more", ""));
	json_object_put(o);
	return 0;
}

int
jira_sprint(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *s, *list, *it, *v;
	struct buf		 q, *out = ctx->out;
	const char		*name = NULL, *column = NULL;
	char			*x;
	size_t			 i;
	int			 rc;

	buf_init(&q);
	if (json_object_object_get_ex(args, "name", &v)) {
		name = json_object_get_string(v);
		if ((x = hub_escape(name)) != NULL)
			buf_printf(&q, "&name=%s", x);
		free(x);
	}
	rc = q.oom ? 1 : agile_get(ctx, "/agile/sprint", q.data != NULL ? q.data : "", &o);
	buf_release(&q);
	if (rc != 0)
		return rc;
	if ((s = json_object_object_get(o, "sprint")) == NULL) {
		if (name != NULL)
			buf_printf(out, "спринта «%s» нет на доске проекта; спринты — sprints", name);
		else
			buf_puts(out, "активного спринта нет; укажите name (спринты — sprints)");
		json_object_put(o);
		return 1;
	}
	buf_printf(out, "%s — %s, ", sdlc_str(s, "name", ""), agile_state(sdlc_str(s, "state", "")));
	agile_dates(out, s);
	if (sdlc_str(s, "goal", NULL) != NULL)
		buf_printf(out, "\nцель: %s", sdlc_str(s, "goal", ""));
	buf_printf(out, "\nзадач: %s/%s, SP: %s/%s, без оценки: %s", sdlc_str(s, "done", "0"),
	    sdlc_str(s, "issues", "0"), sdlc_str(s, "sp_done", "0"), sdlc_str(s, "sp", "0"),
	    sdlc_str(s, "unestimated", "0"));
	list = sdlc_array(o, "issues");
	if (json_object_array_length(list) == 0)
		buf_puts(out, "\nзадач в спринте нет");
	for (i = 0; i < json_object_array_length(list); i++) {
		it = json_object_array_get_idx(list, i);
		if (column == NULL || strcmp(column, sdlc_str(it, "column", "")) != 0) {
			column = sdlc_str(it, "column", "");
			buf_printf(out, "\n%s:", column);
		}
		buf_printf(out, "\n%s | ", sdlc_str(it, "key", ""));
		sdlc_cut(out, sdlc_str(it, "summary", ""), AGILE_SUMMARY_MAX, 1);
		buf_printf(out, " | %s | %s", sdlc_str(it, "assignee", "—"),
		    sdlc_str(it, "story_points", "—"));
	}
	json_object_put(o);
	return 0;
}

int
jira_backlog(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *it, *v;
	struct buf		*out = ctx->out;
	char			 extra[32];
	size_t			 i, n;
	uint64_t		 total;
	int			 rc, limit = 50;

	if (json_object_object_get_ex(args, "limit", &v))
		limit = json_object_get_int(v);
	snprintf(extra, sizeof extra, "&limit=%d", limit);
	if ((rc = agile_get(ctx, "/agile/backlog", extra, &o)) != 0)
		return rc;
	list = sdlc_array(o, "issues");
	n = json_object_array_length(list);
	total = json_object_get_uint64(json_object_object_get(o, "total"));
	buf_puts(out, n == 0 ? "бэклог пуст" : "позиция | ключ | тема | статус | исполнитель | SP");
	for (i = 0; i < n; i++) {
		it = json_object_array_get_idx(list, i);
		buf_printf(out, "\n%zu | %s | ", i + 1, sdlc_str(it, "key", ""));
		sdlc_cut(out, sdlc_str(it, "summary", ""), AGILE_SUMMARY_MAX, 1);
		buf_printf(out, " | %s | %s | %s", sdlc_str(it, "status", ""),
		    sdlc_str(it, "assignee", "—"), sdlc_str(it, "story_points", "—"));
	}
	if (total > n)
		buf_printf(out, "\nещё %llu", (unsigned long long)(total - n));
	json_object_put(o);
	return 0;
}
