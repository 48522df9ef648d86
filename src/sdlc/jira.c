/* jira: the sdlc-jira module's tools (sdlc.h), readers and writers of the hub's tracker. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/jira-int.h"
#include "sdlc/sdlc.h"

#define JIRA_SUMMARY_MAX	80	/* code points of a summary in the issues table */
#define JIRA_CARD_COMMENTS	5	/* comments in the card */
#define JIRA_COMMENT_MAX	300	/* code points of a comment in the card */
#define JIRA_DESCRIPTION_MAX	4000	/* code points of the description in the card */
#define JIRA_DASH		"—"

static int
jira_projects(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *p;
	struct buf		*out = ctx->out;
	const char		*label;
	size_t			 i, n;
	int			 rc;

	(void)args;
	if ((rc = sdlc_hub(ctx, "GET", "/projects", NULL, &o)) != 0)
		return rc;
	list = sdlc_array(o, "projects");
	n = json_object_array_length(list);
	if (n == 0)
		buf_puts(out, "проектов нет: project_create");
	else
		buf_puts(out, "метка | название | доска | тип доски | своих задач");
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(list, i);
		label = sdlc_str(p, "label", "");
		buf_printf(out, "\n%s%s | %s | %s | %s | %s", label,
		    ctx->project != NULL && strcmp(ctx->project, label) == 0 ? " (текущий)" : "",
		    sdlc_str(p, "name", ""), sdlc_str(p, "board_id", JIRA_DASH),
		    sdlc_str(p, "board_type", "неизвестен"), sdlc_str(p, "own_issues", "0"));
	}
	json_object_put(o);
	return 0;
}

static int
jira_project_create(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o, *v;
	const char		*label = json_object_get_string(json_object_object_get(args, "label"));
	int			 rc;

	body = json_object_new_object();
	json_object_object_add(body, "label", json_object_new_string(label));
	json_object_object_add(body, "name", json_object_get(json_object_object_get(args, "name")));
	if (json_object_object_get_ex(args, "board_id", &v))
		json_object_object_add(body, "board_id", json_object_get(v));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	rc = sdlc_hub(ctx, "POST", "/projects", body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	v = json_object_object_get(o, "project");
	buf_printf(ctx->out, "проект %s «%s» заведён", label, sdlc_str(v, "name", ""));
	if (json_object_object_get(v, "board_id") != NULL)
		buf_printf(ctx->out, ", доска %s", sdlc_str(v, "board_id", ""));
	buf_printf(ctx->out, "\nid пакета обновления: %s\n", sdlc_str(o, "batch", JIRA_DASH));
	sdlc_mcp_fragment(ctx->out, ctx->module, label);
	json_object_put(o);
	return 0;
}

/* Appends "&name=<escaped value>" for a string argument that is there. */
static int
jira_filter(struct buf *q, struct json_object *args, const char *name)
{
	struct json_object	*v;
	char			*x;

	if (!json_object_object_get_ex(args, name, &v) || v == NULL)
		return 0;
	if ((x = hub_escape(json_object_get_string(v))) == NULL)
		return -1;
	buf_printf(q, "&%s=%s", name, x);
	free(x);
	return 0;
}

static int
jira_issues(struct sdlc_ctx *ctx, struct json_object *args)
{
	static const char *const filters[] = { "status", "assignee", "sprint", "type", "text" };
	struct json_object	*o, *list, *it, *v;
	struct buf		 q, *out = ctx->out;
	char			*label;
	size_t			 i, n;
	int			 rc = 0;

	buf_init(&q);
	if ((label = hub_escape(ctx->project)) == NULL)
		return 1;
	buf_printf(&q, "/issues?project=%s", label);
	free(label);
	for (i = 0; i < sizeof filters / sizeof filters[0]; i++)
		if (jira_filter(&q, args, filters[i]) != 0)
			rc = 1;
	buf_printf(&q, "&limit=%d", json_object_object_get_ex(args, "limit", &v) ?
	    json_object_get_int(v) : 50);
	if (rc != 0 || q.oom || (rc = sdlc_hub(ctx, "GET", q.data, NULL, &o)) != 0) {
		buf_release(&q);
		return rc != 0 ? rc : 1;
	}
	buf_release(&q);
	list = sdlc_array(o, "issues");
	n = json_object_array_length(list);
	buf_puts(out, n == 0 ? "задач нет" : "ключ | тема | статус | срок | исполнитель | спринт | SP");
	for (i = 0; i < n; i++) {
		it = json_object_array_get_idx(list, i);
		buf_printf(out, "\n%s | ", sdlc_str(it, "key", ""));
		sdlc_cut(out, sdlc_str(it, "summary", ""), JIRA_SUMMARY_MAX, 1);
		buf_printf(out, " | %s | ", sdlc_str(it, "status", JIRA_DASH));
		sdlc_date(out, sdlc_str(it, "due", NULL));
		buf_printf(out, " | %s | %s | %s", sdlc_str(it, "assignee", JIRA_DASH),
		    sdlc_str(it, "sprint", JIRA_DASH), sdlc_str(it, "story_points", JIRA_DASH));
	}
	if (json_object_get_boolean(json_object_object_get(o, "truncated")))
		buf_printf(out, "\nпоказаны первые %zu; есть ещё — уточните фильтры или "
		    "увеличьте limit", n);
	json_object_put(o);
	return 0;
}

/* GET /issues/{key}: the issue object, or the hub's refusal. */
int
jira_get_issue(struct sdlc_ctx *ctx, const char *key, struct json_object **o,
    struct json_object **issue)
{
	char	*x, *path = NULL;
	int	 rc;

	if ((x = hub_escape(key)) == NULL || asprintf(&path, "/issues/%s", x) < 0) {
		free(x);
		return 1;
	}
	free(x);
	rc = sdlc_hub(ctx, "GET", path, NULL, o);
	free(path);
	if (rc == 0)
		*issue = json_object_object_get(*o, "issue");
	return rc;
}

/* The card's head: key, summary, the fields with columns, labels, custom fields, description. */
static void
jira_card_head(struct buf *out, struct json_object *it)
{
	struct json_object	*a, *f;
	size_t			 i;

	buf_printf(out, "%s · %s\n", sdlc_str(it, "key", ""), sdlc_str(it, "summary", ""));
	buf_printf(out, "тип: %s · статус: %s · приоритет: %s\n", sdlc_str(it, "type", JIRA_DASH),
	    sdlc_str(it, "status", JIRA_DASH), sdlc_str(it, "priority", JIRA_DASH));
	buf_printf(out, "исполнитель: %s · автор: %s\n", sdlc_str(it, "assignee", JIRA_DASH),
	    sdlc_str(it, "reporter", JIRA_DASH));
	buf_puts(out, "срок: ");
	sdlc_date(out, sdlc_str(it, "due", NULL));
	buf_printf(out, " · спринт: %s · SP: %s\n", sdlc_str(it, "sprint", JIRA_DASH),
	    sdlc_str(it, "story_points", JIRA_DASH));
	buf_puts(out, "создана ");
	sdlc_time(out, sdlc_str(it, "created", NULL), 1);
	buf_puts(out, ", изменена ");
	sdlc_time(out, sdlc_str(it, "updated", NULL), 1);
	a = sdlc_array(it, "labels");
	buf_puts(out, "\nметки: ");
	for (i = 0; i < json_object_array_length(a); i++)
		buf_printf(out, "%s%s", i ? ", " : "", json_object_get_string(
		    json_object_array_get_idx(a, i)));
	if (i == 0)
		buf_puts(out, "нет");
	a = sdlc_array(it, "fields");
	for (i = 0; i < json_object_array_length(a); i++) {
		f = json_object_array_get_idx(a, i);
		buf_printf(out, "\n%s: %s", sdlc_str(f, "name", ""), sdlc_str(f, "value", ""));
	}
	if (sdlc_str(it, "description", NULL) != NULL) {
		buf_puts(out, "\nописание:\n");
		sdlc_cut(out, sdlc_str(it, "description", ""), JIRA_DESCRIPTION_MAX, 0);
	}
}

/* Links (both sides), recent commands and comments. */
static void
jira_card_rest(struct buf *out, struct json_object *it)
{
	struct json_object	*a, *x;
	size_t			 i, n;

	a = sdlc_array(it, "links");
	n = json_object_array_length(a);
	if (n == 0)
		buf_puts(out, "\nсвязей нет");
	else
		buf_printf(out, "\nсвязи (%zu):", n);
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(a, i);
		buf_printf(out, "\n%s %s «%s» (%s; %s)", sdlc_str(x, "direction", ""),
		    sdlc_str(x, "key", ""), sdlc_str(x, "summary", ""), sdlc_str(x, "status", ""),
		    sdlc_str(x, "type", ""));
	}
	buf_putc(out, '\n');
	jira_notes_view(out, NULL, json_object_object_get(it, "notes"));
	a = sdlc_array(it, "commands");
	n = json_object_array_length(a);
	if (n > 0)
		buf_puts(out, "\nпоследние команды:");
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(a, i);
		buf_printf(out, "\n#%s %s — %s, пакет %s", sdlc_str(x, "id", ""),
		    sdlc_str(x, "type", ""), sdlc_str(x, "state", ""), sdlc_str(x, "batch", ""));
	}
	a = sdlc_array(it, "comments");
	n = (size_t)json_object_get_uint64(json_object_object_get(it, "comment_count"));
	buf_putc(out, '\n');
	if (n == 0)
		sdlc_say(out, HT_NO_COMMENTS);
	else
		sdlc_say(out, HT_COMMENTS, n);
	for (i = 0; i < JIRA_CARD_COMMENTS && i < json_object_array_length(a); i++) {
		x = json_object_array_get_idx(a, i);
		buf_printf(out, "\n#%s %s, ", sdlc_str(x, "id", ""), sdlc_str(x, "author", ""));
		sdlc_time(out, sdlc_str(x, "created", NULL), 1);
		buf_putc(out, '\n');
		sdlc_cut(out, sdlc_str(x, "body", ""), JIRA_COMMENT_MAX, 0);
		jira_card_files(out, it, sdlc_str(x, "id", ""));
	}
	if (n > JIRA_CARD_COMMENTS) {
		buf_putc(out, '\n');
		sdlc_say(out, HT_MORE, n - JIRA_CARD_COMMENTS);
	}
}

static int
jira_issue(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o = NULL, *it;
	int			 rc;

	if ((rc = jira_get_issue(ctx, json_object_get_string(json_object_object_get(args, "key")),
	    &o, &it)) != 0)
		return rc;
	jira_card_head(ctx->out, it);
	jira_card_rest(ctx->out, it);
	jira_card_changes(ctx->out, it);
	jira_card_attachments(ctx->out, it);
	json_object_put(o);
	return 0;
}

static int
jira_comment(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o = NULL, *it, *a, *c;
	const char		*key = json_object_get_string(json_object_object_get(args, "key"));
	const char		*want = json_object_get_string(json_object_object_get(args,
				    "comment_id"));
	const char		*created, *updated;
	size_t			 i;
	int			 rc;

	if (want[0] == '#')
		want++;
	if ((rc = jira_get_issue(ctx, key, &o, &it)) != 0)
		return rc;
	a = sdlc_array(it, "comments");
	for (i = 0; i < json_object_array_length(a); i++) {
		c = json_object_array_get_idx(a, i);
		if (strcmp(sdlc_str(c, "id", ""), want) != 0)
			continue;
		buf_printf(ctx->out, "%s #%s %s, создан ", sdlc_str(it, "key", key), want,
		    sdlc_str(c, "author", ""));
		created = sdlc_str(c, "created", NULL);
		updated = sdlc_str(c, "updated", NULL);
		sdlc_time(ctx->out, created, 1);
		if (updated != NULL && (created == NULL || strcmp(updated, created) != 0)) {
			buf_puts(ctx->out, ", изменён ");
			sdlc_time(ctx->out, updated, 1);
		}
		buf_printf(ctx->out, "\n%s", sdlc_str(c, "body", ""));
		json_object_put(o);
		return 0;
	}
	sdlc_say(ctx->out, HT_NO_COMMENT, sdlc_str(it, "key", key), want);
	json_object_put(o);
	return 1;
}

#define KEY_SCHEMA \
    "\"key\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64," \
    "\"description\":\"ключ задачи, например AURORA-9001\"}"

static const struct sdlc_tool jira_tools[] = {
	{ "projects", "Проекты хаба",
	  "Проекты хаба: метка, название, доска, тип доски («неизвестен», пока агент не "
	  "определил) и число своих задач; в привязанной сессии текущий проект отмечен.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	  SDLC_ANY | SDLC_READ, jira_projects, NULL },
	{ "project_create", "Завести проект",
	  "Заводит проект в хабе (POST /projects, автор claude) и ставит пакет его обновления; "
	  "отвечает проектом, id пакета обновления и фрагментом .mcp.json для репозитория "
	  "проекта (без токена). Метка — заглавные латинские буквы, цифры и _.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"label\":{\"type\":\"string\",\"pattern\":\"^[A-Z][A-Z0-9_]{0,63}$\","
	  "\"description\":\"метка проекта, например STOCKS_DRRK\"},"
	  "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
	  "\"description\":\"название проекта\"},"
	  "\"board_id\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"id доски\"}},"
	  "\"required\":[\"label\",\"name\"],\"additionalProperties\":false}",
	  SDLC_ANY, jira_project_create, NULL },
	{ "issues", "Задачи проекта",
	  "Задачи проекта сессии и их соседи (связанные с ними задачи): ключ, тема (до 80 "
	  "символов), статус, срок, исполнитель, спринт, SP; сначала недавно изменённые.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"status\":{\"type\":\"string\",\"maxLength\":64,\"description\":\"статус, точно\"},"
	  "\"assignee\":{\"type\":\"string\",\"maxLength\":255,\"description\":\"исполнитель, точно\"},"
	  "\"sprint\":{\"type\":\"string\",\"maxLength\":255,\"description\":\"спринт, точно\"},"
	  "\"type\":{\"type\":\"string\",\"maxLength\":64,\"description\":\"тип задачи, точно\"},"
	  "\"text\":{\"type\":\"string\",\"maxLength\":255,\"description\":\"подстрока темы\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500,\"default\":50}},"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, jira_issues, NULL },
	{ "issue", "Карточка задачи",
	  "Карточка задачи по ключу: поля, связи (обе стороны, с типом и направлением), заметки, "
	  "последние команды, 5 последних комментариев (новые первыми, до 300 символов, с их "
	  "файлами), 5 последних изменений из журнала (если они есть) и вложения (номер, имя, "
	  "размер, где упомянуто, скачано ли).",
	  "{\"type\":\"object\",\"properties\":{" KEY_SCHEMA "},"
	  "\"required\":[\"key\"],\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, jira_issue, NULL },
	{ "comment", "Комментарий целиком",
	  "Один комментарий задачи целиком, с переносами строк; comment_id — номер из ответа "
	  "issue («#» в начале допускается).",
	  "{\"type\":\"object\",\"properties\":{" KEY_SCHEMA ","
	  "\"comment_id\":{\"type\":\"string\",\"pattern\":\"^#?[0-9]{1,19}$\","
	  "\"description\":\"номер комментария, например 101 или #101\"}},"
	  "\"required\":[\"key\",\"comment_id\"],\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, jira_comment, NULL },
	{ "changes", "Лента изменений",
	  "Изменения задач за период, сгруппированные по задачам (сначала недавно изменённые, "
	  "события новые первыми): статус, описание, сроки, комментарии, другие поля. Без hours "
	  "и since — с начала сегодняшнего дня; время без смещения — местное время этой машины. "
	  "Без key — задачи проекта сессии; с key — одна задача (и без привязки).",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"hours\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":8760,"
	  "\"description\":\"за последние столько часов (не вместе с since)\"},"
	  "\"since\":{\"type\":\"string\",\"minLength\":10,\"maxLength\":40,"
	  "\"description\":\"с какого момента: 2026-10-22, 2026-10-22T09:00 или со "
	  "смещением, 2026-10-22T09:00:00+03:00\"},"
	  "\"until\":{\"type\":\"string\",\"minLength\":10,\"maxLength\":40,"
	  "\"description\":\"по какой момент (по умолчанию сейчас), в том же виде\"},"
	  "\"kinds\":{\"type\":\"string\",\"pattern\":\"^[a-z]+(,[a-z]+)*$\","
	  "\"maxLength\":64,\"description\":\"только эти виды через запятую: status, "
	  "description, dates, comment, field\"}," KEY_SCHEMA "},"
	  "\"additionalProperties\":false}",
	  SDLC_READ, jira_changes, NULL },
	{ "attachment", "Скачать вложение",
	  "Скачивает вложение задачи на эту машину: attachment — номер из карточки («#31337» "
	  "или «31337») или точное имя файла (из нескольких с одним именем — самое новое). Хаб "
	  "ставит агенту команду fetch_attachment, если копии ещё нет; инструмент ждёт её не "
	  "дольше wait_seconds и отвечает абсолютным путём файла и строкой «имя (размер), тип, "
	  "задача». Файлы больше 10 МБ — только в Jira.",
	  "{\"type\":\"object\",\"properties\":{" KEY_SCHEMA ","
	  "\"attachment\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
	  "\"description\":\"номер вложения (#31337) или точное имя файла\"},"
	  "\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600,"
	  "\"default\":120,\"description\":\"сколько ждать скачивания, секунд\"}},"
	  "\"required\":[\"key\",\"attachment\"],\"additionalProperties\":false}",
	  SDLC_BOUND, jira_attachment, NULL },
	{ "sprints", "Спринты доски",
	  "Спринты доски проекта: имя, состояние, даты, задачи и SP (выполнено/всего), задачи "
	  "без оценки; сначала активный, потом будущие, потом 10 последних закрытых.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, jira_sprints, NULL },
	{ "sprint", "Спринт по колонкам",
	  "Спринт (по умолчанию активный): заголовок с датами, целью и суммами, затем задачи по "
	  "колонкам доски: ключ, тема (до 80 символов), исполнитель, SP.",
	  "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
	  "\"minLength\":1,\"maxLength\":255,\"description\":\"имя спринта\"}},"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, jira_sprint, NULL },
	{ "backlog", "Бэклог",
	  "Бэклог проекта по рангу: позиция, ключ, тема, статус, исполнитель, SP; задачи не "
	  "выполнены и не в открытом спринте. В конце «ещё N», если их больше limit.",
	  "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\","
	  "\"minimum\":1,\"maximum\":500,\"default\":50}},\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, jira_backlog, NULL },
	{ "batch_create", "Поставить пакет команд", NULL,
	  "{\"type\":\"object\",\"properties\":{"
	  "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,"
	  "\"description\":\"название пакета\"},"
	  "\"commands\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":49,"
	  "\"items\":{\"type\":\"object\"},"
	  "\"description\":\"команды: объекты с type и параметрами (см. описание)\"}},"
	  "\"required\":[\"title\",\"commands\"],\"additionalProperties\":false}",
	  SDLC_BOUND, jira_batch_create, jira_batch_describe },
	{ "batch_status", "Состояние пакета",
	  "Пакет по id: состояние каждой команды, ошибки и оценка остатка.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\","
	  "\"minimum\":1,\"description\":\"id пакета\"}},"
	  "\"required\":[\"id\"],\"additionalProperties\":false}",
	  SDLC_READ, jira_batch_status, NULL },
	{ "batches", "Последние пакеты",
	  "Последние пакеты (проекта сессии, если она привязана; иначе все) с их состоянием.",
	  "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\","
	  "\"minimum\":1,\"maximum\":500,\"default\":20}},\"additionalProperties\":false}",
	  SDLC_READ, jira_batches, NULL },
	{ "batch_wait", "Дождаться пакета",
	  "Ждёт конца пакета (не дольше timeout_minutes, до 60) и отвечает, как batch_status: "
	  "сразу, как пакет завершится.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\","
	  "\"minimum\":1,\"description\":\"id пакета\"},\"timeout_minutes\":{\"type\":"
	  "\"integer\",\"minimum\":1,\"maximum\":60,\"default\":10}},"
	  "\"required\":[\"id\"],\"additionalProperties\":false}",
	  SDLC_READ, jira_batch_wait, NULL },
	{ "refresh", "Обновить зеркало",
	  "Ставит пакет обновления зеркала: keys — этих задач, full — полный прогон всех "
	  "проектов. Без wait — строка с id пакета; с wait — итог пакета, как у batch_wait.",
	  "{\"type\":\"object\",\"properties\":{\"keys\":{\"type\":\"array\","
	  "\"minItems\":1,\"maxItems\":64,\"items\":{\"type\":\"string\","
	  "\"minLength\":1,\"maxLength\":64}},\"full\":{\"type\":\"boolean\"},"
	  "\"wait\":{\"type\":\"boolean\",\"default\":false}},"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND, jira_refresh, NULL },
	{ "batch_cancel", "Отменить пакет",
	  "Отменяет команды пакета, ещё не взятые агентом, и показывает пакет; о каждой команде, "
	  "уже взятой агентом, — строка: она будет выполнена, остановить её можно только через "
	  "API хаба с force.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\","
	  "\"minimum\":1,\"description\":\"id пакета\"}},"
	  "\"required\":[\"id\"],\"additionalProperties\":false}",
	  0, jira_batch_cancel, NULL },
	{ "command_retry", "Повторить команду",
	  "Ставит команду (по её id из batch_status) ещё раз, новым пакетом проекта сессии; "
	  "команду пакета другого проекта или без проекта хаб не повторит.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\","
	  "\"minimum\":1,\"description\":\"id команды\"}},"
	  "\"required\":[\"id\"],\"additionalProperties\":false}",
	  SDLC_BOUND, jira_command_retry, NULL },
	{ "notes_set", "Заметки к задаче",
	  "Задаёт заметки хаба к своей задаче проекта сессии (метка проекта; соседи — нет) или к "
	  "new:<n> задачи, которую создаст пакет проекта; пустая строка стирает поле. Отвечает "
	  "заметками после изменения.",
	  "{\"type\":\"object\",\"properties\":{" KEY_SCHEMA ","
	  "\"goal\":{\"type\":\"string\",\"maxLength\":4000,\"description\":\"цель\"},"
	  "\"next_step\":{\"type\":\"string\",\"maxLength\":4000,"
	  "\"description\":\"следующий шаг\"},"
	  "\"risks\":{\"type\":\"string\",\"maxLength\":4000,\"description\":\"риски\"},"
	  "\"text\":{\"type\":\"string\",\"maxLength\":4000,\"description\":\"заметка\"}},"
	  "\"required\":[\"key\"],\"additionalProperties\":false}",
	  SDLC_BOUND, jira_notes_set, NULL },
	{ "settings_get", "Настройки хаба",
	  "Настройки хаба и их settings_version; key — одна настройка.",
	  "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\","
	  "\"pattern\":\"^[a-z_]{1,64}$\"}},\"additionalProperties\":false}",
	  SDLC_READ, jira_settings_get, NULL },
	{ "settings_set", "Изменить настройку",
	  "Меняет одну настройку хаба; отвечает новой settings_version.",
	  "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\","
	  "\"pattern\":\"^[a-z_]{1,64}$\"},\"value\":{\"type\":\"string\",\"maxLength\":999}},"
	  "\"required\":[\"key\",\"value\"],\"additionalProperties\":false}",
	  0, jira_settings_set, NULL },
	{ "sync_log", "Журнал обновлений",
	  "Последние прогоны обновления зеркала: проект, время, итог, число задач и «журнал: "
	  "принят ДД.ММ ЧЧ:ММ» (до какого момента взят журнал изменений) или «журнал: нет».",
	  "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\","
	  "\"minimum\":1,\"maximum\":500,\"default\":10}},\"additionalProperties\":false}",
	  SDLC_READ, jira_sync_log, NULL },
	{ "agent_status", "Состояние агента",
	  "Агент онлайн или офлайн, его версия, текущая команда, довыданные команды (id, тип, "
	  "число выдач), 429 за сутки, версия настроек, публикация, обновление и запускатель.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	  SDLC_READ, jira_agent_status, NULL },
};

const struct sdlc_module sdlc_jira = {
	"jira", "sdlc-jira",
	"Зеркало трекера (Jira) в хабе sdlc: чтение задач, комментариев и проектов. Сессия "
	"привязана к проекту ключом --project <метка>; без привязки работают projects и "
	"project_create.",
	jira_tools, sizeof jira_tools / sizeof jira_tools[0], NULL,
};
