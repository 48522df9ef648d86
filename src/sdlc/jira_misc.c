/* jira_misc: the sdlc-jira tools of notes, settings and the sync log (jira-int.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/jira-int.h"
#include "sdlc/sdlc.h"

/* The notes fields and how the answers name them. */
static const struct {
	const char	*field, *label;
} jira_note_labels[] = {
	{ "goal", "цель" },
	{ "next_step", "следующий шаг" },
	{ "risks", "риски" },
	{ "text", "заметка" },
};

void
jira_notes_view(struct buf *out, const char *key, struct json_object *notes)
{
	const char	*v;
	size_t		 i;
	int		 any = 0;

	for (i = 0; notes != NULL && i < sizeof jira_note_labels / sizeof jira_note_labels[0]; i++) {
		if ((v = sdlc_str(notes, jira_note_labels[i].field, NULL)) == NULL)
			continue;
		if (!any)
			buf_printf(out, "заметки%s%s:", key != NULL ? " " : "", key != NULL ? key : "");
		buf_printf(out, "\n%s: %s", jira_note_labels[i].label, v);
		any = 1;
	}
	if (!any)
		buf_puts(out, "заметок нет");
}

int
jira_notes_set(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o;
	const char		*key = json_object_get_string(json_object_object_get(args, "key"));
	char			*x = NULL, *path = NULL;
	int			 rc;

	if ((x = hub_escape(key)) == NULL || asprintf(&path, "/issues/%s/notes", x) < 0) {
		free(x);
		return 1;
	}
	free(x);
	body = json_object_new_object();
	json_object_object_foreach(args, k, v) {
		if (strcmp(k, "key") != 0)
			json_object_object_add(body, k, json_object_get(v));
	}
	json_object_object_add(body, "project", json_object_new_string(ctx->project));
	rc = sdlc_hub(ctx, "POST", path, body, &o);
	json_object_put(body);
	free(path);
	if (rc != 0)
		return rc;
	jira_notes_view(ctx->out, key, json_object_object_get(o, "notes"));
	json_object_put(o);
	return 0;
}

int
jira_settings_get(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *s, *v;
	char			 path[200];
	size_t			 i;
	int			 rc;

	if (json_object_object_get_ex(args, "key", &v))
		snprintf(path, sizeof path, "/settings/%s", json_object_get_string(v));
	else
		snprintf(path, sizeof path, "/settings");
	if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
		return rc;
	buf_printf(ctx->out, "settings_version: %s", sdlc_str(o, "version", "0"));
	list = sdlc_array(o, "settings");
	for (i = 0; i < json_object_array_length(list); i++) {
		s = json_object_array_get_idx(list, i);
		buf_printf(ctx->out, "\n%s = %s%s", sdlc_str(s, "name", ""), sdlc_str(s, "value", ""),
		    json_object_get_boolean(json_object_object_get(s, "default")) ?
		    " (по умолчанию)" : "");
	}
	json_object_put(o);
	return 0;
}

int
jira_settings_set(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o;
	char			 path[200];
	int			 rc;

	snprintf(path, sizeof path, "/settings/%s",
	    json_object_get_string(json_object_object_get(args, "key")));
	body = json_object_new_object();
	json_object_object_add(body, "value", json_object_get(json_object_object_get(args, "value")));
	rc = sdlc_hub(ctx, "POST", path, body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	buf_printf(ctx->out, "%s = %s\nsettings_version: %s", sdlc_str(o, "name", ""),
	    sdlc_str(o, "value", ""), sdlc_str(o, "version", ""));
	json_object_put(o);
	return 0;
}

int
jira_sync_log(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *s, *v;
	char			 path[64];
	const char		*history, *error;
	size_t			 i, n;
	int			 rc;

	snprintf(path, sizeof path, "/sync_runs?limit=%d",
	    json_object_object_get_ex(args, "limit", &v) ? json_object_get_int(v) : 10);
	if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
		return rc;
	list = sdlc_array(o, "sync_runs");
	n = json_object_array_length(list);
	if (n == 0)
		buf_puts(ctx->out, "прогонов обновления ещё не было");
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(list, i);
		buf_printf(ctx->out, "%s#%s %s, ", i ? "\n" : "", sdlc_str(s, "id", ""),
		    sdlc_str(s, "project", "все проекты"));
		sdlc_time(ctx->out, sdlc_str(s, "finished", NULL), 1);
		buf_printf(ctx->out, ", %s, задач: %s, ", sdlc_str(s, "state", ""),
		    sdlc_str(s, "issues", "0"));
		if ((history = sdlc_str(s, "history_at", NULL)) != NULL) {
			buf_puts(ctx->out, "журнал: принят ");
			sdlc_time(ctx->out, history, 1);
		} else
			buf_puts(ctx->out, "журнал: нет");
		if ((error = sdlc_str(s, "error", NULL)) != NULL)
			buf_printf(ctx->out, ", ошибка: %s", error);
	}
	json_object_put(o);
	return 0;
}

int
jira_agent_status(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o;
	int			 rc;

	(void)args;
	if ((rc = sdlc_hub(ctx, "GET", "/agent", NULL, &o)) != 0)
		return rc;
	sdlc_agent_view(ctx->out, o);
	json_object_put(o);
	return 0;
}

void
sdlc_agent_view(struct buf *out, struct json_object *o)
{
	struct json_object	*a, *c, *p;
	const char		*version, *launcher, *state, *target, *hint, *sv;
	size_t			 i;

	version = sdlc_str(o, "version", NULL);
	launcher = sdlc_str(o, "launcher", NULL);
	if (!json_object_get_boolean(json_object_object_get(o, "seen")))
		buf_puts(out, "агент офлайн: ещё не выходил на связь");
	else {
		buf_printf(out, "агент %s: %s v%s, последний запрос ",
		    json_object_get_boolean(json_object_object_get(o, "online")) ? "онлайн" :
		    "офлайн", sdlc_str(o, "module", ""), version != NULL ? version : "?");
		sdlc_time(out, sdlc_str(o, "last_seen", NULL), 1);
	}
	if ((c = json_object_object_get(o, "current")) != NULL)
		buf_printf(out, "\nтекущая команда: #%s %s, пакет %s", sdlc_str(c, "id", ""),
		    sdlc_str(c, "type", ""), sdlc_str(c, "batch", ""));
	else
		buf_puts(out, "\nтекущей команды нет");
	a = sdlc_array(o, "handed_again");
	if (json_object_array_length(a) == 0)
		buf_puts(out, "\nдовыданных команд нет");
	else
		buf_puts(out, "\nдовыданные команды:");
	for (i = 0; i < json_object_array_length(a); i++) {
		c = json_object_array_get_idx(a, i);
		buf_printf(out, "\n#%s %s — выдана %s раза", sdlc_str(c, "id", ""),
		    sdlc_str(c, "type", ""), sdlc_str(c, "handouts", ""));
	}
	buf_printf(out, "\n429 за сутки: %s", sdlc_str(o, "count_429", "0"));
	sv = sdlc_str(o, "settings_version", NULL);
	buf_printf(out, "\nверсия настроек: %s (в хабе: %s)", sv != NULL ? sv : "неизвестна",
	    sdlc_str(o, "hub_settings_version", "0"));
	if ((p = json_object_object_get(o, "publication")) != NULL) {
		buf_printf(out, "\nпубликация: v%s от ", sdlc_str(p, "version", ""));
		sdlc_time(out, sdlc_str(p, "published_at", NULL), 1);
	} else
		buf_puts(out, "\nпубликации нет");
	state = sdlc_str(o, "update_state", NULL);
	target = sdlc_str(o, "update_target", NULL);
	if (state != NULL) {
		buf_printf(out, "\nобновление: %s v%s → v%s", state, version != NULL ? version : "?",
		    target != NULL ? target : "?");
		if (strcmp(state, "rolled_back") == 0)
			buf_printf(out, "\nоткат с v%s на v%s: %s", target != NULL ? target : "?",
			    version != NULL ? version : "?",
			    sdlc_str(o, "update_error", "причина не названа"));
	}
	if (!json_object_get_boolean(json_object_object_get(o, "reported")))
		buf_puts(out, "\nзапускатель: неизвестно (агент ещё не выходил на связь после "
		    "перезапуска хаба)");
	else if (launcher != NULL)
		buf_printf(out, "\nзапускатель: v%s", launcher);
	else
		buf_puts(out, "\nбез запускателя\nагент запущен без run.py: обновлять его некому");
	if ((hint = sdlc_str(o, "update_hint", NULL)) != NULL)
		buf_printf(out, "\nupdate_hint: %s", hint);
}
