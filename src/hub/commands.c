/* commands: the hub's command registry and the checks of a batch (commands.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "buf.h"
#include "hub/commands.h"
#include "hub/texts.h"

enum hub_format {
	HF_KEY,		/* an issue key, AURORA-12, or a temporary key new:<n> of the batch */
	HF_TEMP,	/* a temporary key new:<n> */
	HF_TEXT,	/* a non-empty string */
	HF_LABELS,	/* an array of labels */
	HF_KEYS,	/* an array of issue keys */
	HF_DATE,	/* YYYY-MM-DD */
	HF_NUMBER,	/* a number, 0 or more */
	HF_ID,		/* a positive integer */
	HF_TRUE,	/* true */
	HF_DIRECTION,	/* outward | inward */
	HF_SPRINT_STATE,	/* active | closed */
	HF__MAX
};

/* How each format is shown in the description and in a refusal. */
static const char *const hub_format_text[HF__MAX] = {
	[HF_KEY] = "ключ задачи или new:<n>",
	[HF_TEMP] = "new:<n>",
	[HF_TEXT] = "текст",
	[HF_LABELS] = "список меток",
	[HF_KEYS] = "список ключей",
	[HF_DATE] = "дата ГГГГ-ММ-ДД",
	[HF_NUMBER] = "число",
	[HF_ID] = "целое число больше нуля",
	[HF_TRUE] = "true",
	[HF_DIRECTION] = "outward | inward",
	[HF_SPRINT_STATE] = "active | closed",
};

struct hub_param {
	const char	*name;
	int		 required;
	enum hub_format	 format;
};

enum {
	HC_BOARD = 1 << 0,	/* the hub sets board_id from the project */
	HC_ISSUE = 1 << 1,	/* ensure_issue: the project's label is added */
};

struct hub_command {
	const char		*type;
	unsigned		 flags;
	double			 seconds;	/* the estimate */
	struct hub_param	 params[10];	/* ended by a NULL name */
};

static const struct hub_command hub_commands[] = {
	{ "ensure_issue", HC_ISSUE, 20, {
		{ "temp_key", 1, HF_TEMP }, { "summary", 1, HF_TEXT },
		{ "issue_type", 0, HF_TEXT }, { "description", 0, HF_TEXT },
		{ "labels", 0, HF_LABELS }, { "assignee", 0, HF_TEXT },
		{ "priority", 0, HF_TEXT }, { "due", 0, HF_DATE }, { NULL, 0, 0 } } },
	{ "ensure_fields", 0, 10, {
		{ "key", 1, HF_KEY }, { "summary", 0, HF_TEXT }, { "description", 0, HF_TEXT },
		{ "status", 0, HF_TEXT }, { "assignee", 0, HF_TEXT }, { "priority", 0, HF_TEXT },
		{ "due", 0, HF_DATE }, { "story_points", 0, HF_NUMBER }, { NULL, 0, 0 } } },
	{ "ensure_link", 0, 10, {
		{ "key", 1, HF_KEY }, { "link_type", 1, HF_TEXT }, { "to", 1, HF_KEY },
		{ "direction", 0, HF_DIRECTION }, { NULL, 0, 0 } } },
	{ "ensure_sprint", HC_BOARD, 10, {
		{ "key", 1, HF_KEY }, { "sprint", 1, HF_TEXT }, { NULL, 0, 0 } } },
	{ "ensure_sprint_meta", HC_BOARD, 10, {
		{ "sprint", 1, HF_TEXT }, { "goal", 0, HF_TEXT }, { "start", 0, HF_DATE },
		{ "end", 0, HF_DATE }, { NULL, 0, 0 } } },
	{ "ensure_sprint_state", HC_BOARD, 15, {
		{ "sprint", 1, HF_TEXT }, { "state", 1, HF_SPRINT_STATE }, { NULL, 0, 0 } } },
	{ "ensure_rank", 0, 10, {
		{ "key", 1, HF_KEY }, { "before", 0, HF_KEY }, { "after", 0, HF_KEY },
		{ NULL, 0, 0 } } },
	{ "ensure_attachment", 0, 30, {
		{ "key", 1, HF_KEY }, { "file", 1, HF_ID }, { "filename", 0, HF_TEXT },
		{ NULL, 0, 0 } } },
	{ "refresh", 0, 30, {
		{ "keys", 0, HF_KEYS }, { "full", 0, HF_TRUE }, { NULL, 0, 0 } } },
};
#define HUB_N_COMMANDS	(sizeof hub_commands / sizeof hub_commands[0])

static const struct hub_command *
hub_command(const char *type)
{
	size_t	i;

	for (i = 0; type != NULL && i < HUB_N_COMMANDS; i++)
		if (strcmp(hub_commands[i].type, type) == 0)
			return &hub_commands[i];
	return NULL;
}

double
hub_command_seconds(const char *type)
{
	const struct hub_command *c = hub_command(type);

	return c != NULL ? c->seconds : 30;
}

/* The shapes of a temporary key, an issue key and a date. */
static int
hub_is_temp(const char *s)
{
	size_t	i;

	if (strncmp(s, "new:", 4) != 0 || s[4] == '\0' || strlen(s) > 14)
		return 0;
	for (i = 4; s[i] != '\0'; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int
hub_is_key(const char *s)
{
	const char	*dash = strrchr(s, '-');
	size_t		 i;

	if (dash == NULL || dash == s || dash[1] == '\0' || strlen(s) > 64 ||
	    !(s[0] >= 'A' && s[0] <= 'Z'))
		return 0;
	for (i = 1; s + i < dash; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	for (i = 1; dash[i] != '\0'; i++)
		if (dash[i] < '0' || dash[i] > '9')
			return 0;
	return 1;
}

static int
hub_is_date(const char *s)
{
	static const char	 shape[] = "dddd-dd-dd";
	size_t			 i;

	if (strlen(s) != sizeof shape - 1)
		return 0;
	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return 0;
	return 1;
}

static int
hub_is_string(struct json_object *v)
{
	return json_object_is_type(v, json_type_string) && json_object_get_string_len(v) > 0 &&
	    json_object_get_string_len(v) <= 65535;
}

/* Whether v has format f. */
static int
hub_format_ok(struct json_object *v, enum hub_format f)
{
	const char	*s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	size_t		 i, n;

	switch (f) {
	case HF_KEY:
		return s != NULL && (hub_is_key(s) || hub_is_temp(s));
	case HF_TEMP:
		return s != NULL && hub_is_temp(s);
	case HF_TEXT:
		return hub_is_string(v);
	case HF_DATE:
		return s != NULL && hub_is_date(s);
	case HF_NUMBER:
		return (json_object_is_type(v, json_type_int) || json_object_is_type(v,
		    json_type_double)) && json_object_get_double(v) >= 0;
	case HF_ID:
		return json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0;
	case HF_TRUE:
		return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
	case HF_DIRECTION:
		return s != NULL && (strcmp(s, "outward") == 0 || strcmp(s, "inward") == 0);
	case HF_SPRINT_STATE:
		return s != NULL && (strcmp(s, "active") == 0 || strcmp(s, "closed") == 0);
	case HF_LABELS:
	case HF_KEYS:
		if (!json_object_is_type(v, json_type_array) ||
		    (n = json_object_array_length(v)) == 0 || n > 64)
			return 0;
		for (i = 0; i < n; i++) {
			struct json_object *x = json_object_array_get_idx(v, i);

			if (!hub_is_string(x) || json_object_get_string_len(x) > 255 ||
			    strchr(json_object_get_string(x), ' ') != NULL ||
			    (f == HF_KEYS && !hub_format_ok(x, HF_KEY)))
				return 0;
		}
		return 1;
	default:
		return 0;
	}
}

static int
hub_fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
hub_fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	hub_vsay(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Whether array a holds the string s. */
static int
hub_has(struct json_object *a, const char *s)
{
	size_t	i;

	for (i = 0; a != NULL && i < json_object_array_length(a); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(a, i)), s) == 0)
			return 1;
	return 0;
}

/*
 * The issue key a parameter of command i names must be the project's own,
 * or a temporary key defined earlier in the batch (temps).
 */
static int
hub_key_in_project(const struct hub_batch_ctx *ctx, struct json_object *temps, size_t i,
    const char *type, const char *key, char *msg, size_t len)
{
	int	own;

	if (hub_is_temp(key)) {
		if (!hub_has(temps, key))
			return hub_fail(msg, len, "команда #%zu (%s): временный ключ %s не задан "
			    "выше в этом пакете (ensure_issue с temp_key)", i + 1, type, key);
		return 0;
	}
	if (ctx->project == NULL)
		return 0;
	if ((own = ctx->own(ctx->own_arg, key)) < 0) {
		msg[0] = '\0';
		return -1;
	}
	if (!own)
		return hub_fail(msg, len, "команда #%zu (%s): задача %s не в проекте %s; команды "
		    "над задачами вне проекта отклоняются", i + 1, type, key, ctx->project);
	return 0;
}

/* Checks command i against its type and rewrites it for the project into *out. */
static int
hub_check_one(const struct hub_batch_ctx *ctx, struct json_object *cmd, size_t i,
    struct json_object *temps, struct json_object *touched, struct json_object **out,
    char *msg, size_t len)
{
	const struct hub_command	*c;
	const struct hub_param		*p;
	struct json_object		*v, *labels;
	const char			*type;
	size_t				 j;

	*out = NULL;
	if (!json_object_is_type(cmd, json_type_object))
		return hub_fail(msg, len, "команда #%zu: ожидался объект с type", i + 1);
	type = json_object_get_string(json_object_object_get(cmd, "type"));
	if ((c = hub_command(type)) == NULL)
		return hub_fail(msg, len, "команда #%zu: неизвестный тип «%s»; типы — в описании "
		    "batch_create", i + 1, type != NULL ? type : "");
	if (strcmp(type, "ensure_attachment") == 0 &&
	    json_object_object_get_ex(cmd, "path", &v))
		return hub_fail(msg, len, "команда #%zu (ensure_attachment): path читает и "
		    "загружает MCP-сервер; хабу нужен file из POST /files", i + 1);
	json_object_object_foreach(cmd, name, val) {
		if (strcmp(name, "type") == 0)
			continue;
		for (p = c->params; p->name != NULL && strcmp(p->name, name) != 0; p++)
			;
		if (p->name == NULL)
			return hub_fail(msg, len, "команда #%zu (%s): неизвестный параметр %s", i + 1,
			    type, name);
		if (!hub_format_ok(val, p->format))
			return hub_fail(msg, len, "команда #%zu (%s): %s — %s", i + 1, type, name,
			    hub_format_text[p->format]);
	}
	for (p = c->params; p->name != NULL; p++)
		if (p->required && !json_object_object_get_ex(cmd, p->name, &v))
			return hub_fail(msg, len, "команда #%zu (%s): нет обязательного параметра "
			    "%s", i + 1, type, p->name);
	if (strcmp(type, "refresh") == 0 && json_object_object_get_ex(cmd, "keys", &v) ==
	    json_object_object_get_ex(cmd, "full", &v))
		return hub_fail(msg, len, "команда #%zu (refresh): нужен либо keys, либо full", i + 1);
	if (c->flags & HC_ISSUE) {
		const char *temp = json_object_get_string(json_object_object_get(cmd, "temp_key"));

		if (hub_has(temps, temp))
			return hub_fail(msg, len, "команда #%zu (ensure_issue): временный ключ %s уже "
			    "задан в этом пакете", i + 1, temp);
		labels = json_object_object_get(cmd, "labels");
		for (j = 0; labels != NULL && j < json_object_array_length(labels); j++) {
			const char *l = json_object_get_string(json_object_array_get_idx(labels, j));

			if (hub_has(ctx->labels, l) && (ctx->project == NULL ||
			    strcmp(l, ctx->project) != 0))
				return hub_fail(msg, len, "команда #%zu (ensure_issue): %s — метка "
				    "другого проекта; метки других проектов запрещены", i + 1, l);
		}
		json_object_array_add(temps, json_object_new_string(temp));
	}
	/* every key it names, in the project or made by this batch */
	for (p = c->params; p->name != NULL; p++) {
		if ((p->format != HF_KEY) || !json_object_object_get_ex(cmd, p->name, &v))
			continue;
		/* a link's other end and a rank's neighbours may lie outside the project */
		if ((strcmp(p->name, "key") == 0 || hub_is_temp(json_object_get_string(v))) &&
		    hub_key_in_project(ctx, temps, i, type, json_object_get_string(v), msg, len) != 0)
			return -1;
		if (!hub_has(touched, json_object_get_string(v)))
			json_object_array_add(touched, json_object_new_string(
			    json_object_get_string(v)));
	}
	if ((c->flags & HC_ISSUE) && !hub_has(touched, json_object_get_string(
	    json_object_object_get(cmd, "temp_key"))))
		json_object_array_add(touched, json_object_get(json_object_object_get(cmd,
		    "temp_key")));
	if (json_object_deep_copy(cmd, out, NULL) != 0)
		return hub_fail(msg, len, "out of memory");
	if ((c->flags & HC_ISSUE) && ctx->project != NULL) {
		if ((labels = json_object_object_get(*out, "labels")) == NULL) {
			labels = json_object_new_array();
			json_object_object_add(*out, "labels", labels);
		}
		if (!hub_has(labels, ctx->project))
			json_object_array_add(labels, json_object_new_string(ctx->project));
	}
	if (ctx->project != NULL && ((c->flags & HC_BOARD) || (strcmp(type, "ensure_fields") == 0 &&
	    json_object_object_get_ex(cmd, "story_points", &v)))) {
		if (ctx->board_id == 0) {
			json_object_put(*out);
			*out = NULL;
			return hub_fail(msg, len, "команда #%zu (%s): у проекта %s нет доски "
			    "(board_id), а команде она нужна", i + 1, type, ctx->project);
		}
		json_object_object_add(*out, "board_id", json_object_new_uint64(ctx->board_id));
	}
	return 0;
}

struct json_object *
hub_batch_check(const struct hub_batch_ctx *ctx, struct json_object *commands,
    double *estimate, char *msg, size_t len)
{
	struct json_object	*out = NULL, *temps = NULL, *touched = NULL, *one, *refresh;
	const char		*last_type = NULL;
	size_t			 i, n;

	*estimate = 0;
	if (!json_object_is_type(commands, json_type_array) ||
	    (n = json_object_array_length(commands)) == 0) {
		hub_fail(msg, len, "в пакете нет команд: commands — непустой список");
		return NULL;
	}
	if (n >= HUB_BATCH_MAX) {
		hub_fail(msg, len, "в пакете %zu команд, а можно не больше %d вместе с хвостовым "
		    "refresh", n, HUB_BATCH_MAX);
		return NULL;
	}
	out = json_object_new_array();
	temps = json_object_new_array();
	touched = json_object_new_array();
	for (i = 0; i < n; i++) {
		if (hub_check_one(ctx, json_object_array_get_idx(commands, i), i, temps, touched,
		    &one, msg, len) != 0)
			goto fail;
		last_type = json_object_get_string(json_object_object_get(one, "type"));
		*estimate += hub_command_seconds(last_type);
		json_object_array_add(out, one);
	}
	if (strcmp(last_type, "refresh") != 0) {
		refresh = json_object_new_object();
		json_object_object_add(refresh, "type", json_object_new_string("refresh"));
		if (json_object_array_length(touched) > 0)
			json_object_object_add(refresh, "keys", json_object_get(touched));
		else if (ctx->project != NULL)
			json_object_object_add(refresh, "project",
			    json_object_new_string(ctx->project));
		else
			json_object_object_add(refresh, "full", json_object_new_boolean(1));
		json_object_array_add(out, refresh);
		*estimate += hub_command_seconds("refresh");
	}
	json_object_put(temps);
	json_object_put(touched);
	return out;
fail:
	json_object_put(out);
	json_object_put(temps);
	json_object_put(touched);
	return NULL;
}

struct json_object *
hub_commands_json(void)
{
	struct json_object	*a = json_object_new_array(), *c, *ps, *p;
	const struct hub_param	*q;
	size_t			 i;

	for (i = 0; i < HUB_N_COMMANDS; i++) {
		c = json_object_new_object();
		ps = json_object_new_array();
		json_object_object_add(c, "type", json_object_new_string(hub_commands[i].type));
		for (q = hub_commands[i].params; q->name != NULL; q++) {
			p = json_object_new_object();
			json_object_object_add(p, "name", json_object_new_string(q->name));
			json_object_object_add(p, "required", json_object_new_boolean(q->required));
			json_object_object_add(p, "format",
			    json_object_new_string(hub_format_text[q->format]));
			json_object_array_add(ps, p);
		}
		json_object_object_add(c, "params", ps);
		json_object_array_add(a, c);
	}
	return a;
}

void
hub_commands_describe(struct buf *out)
{
	const struct hub_param	*q;
	size_t			 i;

	buf_puts(out, "Ставит пакет команд проекта сессии; их выполнит агент, а хвостовой refresh "
	    "обновит зеркало. Ответ: id пакета, оценка в минутах и число команд; 422 — текст "
	    "ошибки. Команды (type и параметры; необязательные — в [ ], после двоеточия — "
	    "формат значения):");
	for (i = 0; i < HUB_N_COMMANDS; i++) {
		buf_printf(out, "\n- %s:", hub_commands[i].type);
		for (q = hub_commands[i].params; q->name != NULL; q++)
			buf_printf(out, " %s%s: %s%s%s", q->required ? "" : "[", q->name,
			    hub_format_text[q->format], q->required ? "" : "]",
			    q[1].name != NULL ? "," : "");
	}
	buf_puts(out, "\nУ ensure_attachment вместо file можно path — абсолютный путь к файлу на "
	    "машине MCP-сервера (до 10 МБ): MCP загрузит его сам. Метку проекта сессии хаб "
	    "дописывает в ensure_issue сам; метки других проектов запрещены; команды над "
	    "задачами вне проекта отклоняются (new:<n> — задача, созданная ensure_issue выше в "
	    "том же пакете). board_id для ensure_sprint, ensure_sprint_meta, ensure_sprint_state "
	    "и ensure_fields со story_points выставляет хаб. В конец пакета хаб добавляет "
	    "refresh затронутых задач.");
}
