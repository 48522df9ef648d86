/* wiki: the sdlc-wiki module's tools (sdlc.h): the hub's copy of a project's wiki. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/sdlc.h"
#include "sdlc/wiki-int.h"

#define WIKI_DASH		"—"
#define WIKI_SYNC_WAIT		300	/* seconds sync {wait} waits at most */

static int
wiki_projects(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *p;
	const char		*label;
	size_t			 i, n;
	int			 rc;

	(void)args;
	if ((rc = sdlc_hub(ctx, "GET", "/projects?module=wiki", NULL, &o)) != 0)
		return rc;
	list = sdlc_array(o, "projects");
	n = json_object_array_length(list);
	buf_puts(ctx->out, n == 0 ? "проектов нет: project_create" :
	    "метка | название | корень вики | страниц | последняя синхронизация");
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(list, i);
		label = sdlc_str(p, "label", "");
		buf_printf(ctx->out, "\n%s%s | %s | %s | %s | ", label,
		    ctx->project != NULL && strcmp(ctx->project, label) == 0 ? " (текущий)" : "",
		    sdlc_str(p, "name", ""), sdlc_str(p, "wiki_root", WIKI_DASH),
		    sdlc_str(p, "wiki_pages", "0"));
		if (sdlc_str(p, "wiki_synced", NULL) != NULL)
			sdlc_time(ctx->out, sdlc_str(p, "wiki_synced", NULL), 1);
		else
			buf_puts(ctx->out, "не было");
	}
	json_object_put(o);
	return 0;
}

static int
wiki_project_create(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o, *v;
	const char		*label = json_object_get_string(json_object_object_get(args, "label"));
	int			 rc;

	body = json_object_new_object();
	json_object_object_add(body, "label", json_object_new_string(label));
	json_object_object_add(body, "name", json_object_get(json_object_object_get(args, "name")));
	if (json_object_object_get_ex(args, "wiki_root", &v))
		json_object_object_add(body, "wiki_root", json_object_get(v));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	rc = sdlc_hub(ctx, "POST", "/projects", body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	v = json_object_object_get(o, "project");
	buf_printf(ctx->out, "проект %s «%s» заведён", label, sdlc_str(v, "name", ""));
	if (json_object_object_get(o, "wiki_batch") != NULL)
		buf_printf(ctx->out, "\nкорень вики: %s\nid пакета синхронизации: %s",
		    sdlc_str(v, "wiki_root", ""), sdlc_str(o, "wiki_batch", ""));
	else
		buf_puts(ctx->out, "\nкорня вики нет: root_set DOC-…");
	buf_puts(ctx->out, "\n");
	sdlc_mcp_fragment(ctx->out, "wiki", label);
	json_object_put(o);
	return 0;
}

static int
wiki_root_set(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o;
	char			*x, *path = NULL;
	int			 rc;

	if ((x = hub_escape(ctx->project)) == NULL || asprintf(&path, "/projects/%s", x) < 0) {
		free(x);
		return 1;
	}
	free(x);
	body = json_object_new_object();
	json_object_object_add(body, "wiki_root",
	    json_object_get(json_object_object_get(args, "root")));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	rc = sdlc_hub(ctx, "PATCH", path, body, &o);
	json_object_put(body);
	free(path);
	if (rc != 0)
		return rc;
	buf_printf(ctx->out, "корень вики проекта %s: %s\nid пакета синхронизации: %s",
	    ctx->project, sdlc_str(json_object_object_get(o, "project"), "wiki_root", ""),
	    sdlc_str(o, "batch", WIKI_DASH));
	json_object_put(o);
	return 0;
}

int
sdlc_batch_poll(struct sdlc_ctx *ctx, long long id, long seconds, struct json_object **out)
{
	struct json_object	*o = NULL;
	struct timespec		 t0, now;
	const char		*state;
	char			 path[64];
	int			 rc;

	*out = NULL;
	snprintf(path, sizeof path, "/batches/%lld", id);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
			return rc;
		state = sdlc_str(json_object_object_get(o, "batch"), "state", "");
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (strcmp(state, "done") == 0 || strcmp(state, "failed") == 0 ||
		    strcmp(state, "cancelled") == 0 || now.tv_sec - t0.tv_sec >= seconds)
			break;
		json_object_put(o);
		o = NULL;
		sleep(1);
	}
	*out = o;
	return 0;
}

/* The status's lines of the copy: root, last sync, error, batch in progress. */
static void
wiki_status_view(struct buf *out, struct json_object *s)
{
	struct json_object	*last = json_object_object_get(s, "last");
	struct json_object	*b = json_object_object_get(s, "batch");

	buf_printf(out, "корень вики: %s\nстраниц в копии: %s\nпоследняя синхронизация: ",
	    sdlc_str(s, "root", "нет (root_set DOC-…)"), sdlc_str(s, "pages", "0"));
	if (last == NULL)
		buf_puts(out, "не было");
	else {
		buf_printf(out, "#%s ", sdlc_str(last, "id", ""));
		sdlc_time(out, sdlc_str(last, "finished", NULL), 1);
		buf_printf(out, ", %s, страниц: %s", sdlc_str(last, "state", ""),
		    sdlc_str(last, "pages", "0"));
		if (sdlc_str(last, "revision", NULL) != NULL)
			buf_printf(out, ", ревизия %.12s", sdlc_str(last, "revision", ""));
	}
	if (last != NULL && sdlc_str(last, "error", NULL) != NULL)
		buf_printf(out, "\nошибка: %s", sdlc_str(last, "error", ""));
	else
		buf_puts(out, "\nошибки нет");
	if (b != NULL)
		buf_printf(out, "\nпакет в работе: #%s (%s)", sdlc_str(b, "id", ""),
		    sdlc_str(b, "state", ""));
	else
		buf_puts(out, "\nпакета в работе нет");
}

static int
wiki_status_get(struct sdlc_ctx *ctx, struct json_object **out)
{
	char	*q, *path = NULL;
	int	 rc;

	if ((q = wiki_q(ctx)) == NULL || asprintf(&path, "/wiki/status%s", q) < 0) {
		free(q);
		return 1;
	}
	free(q);
	rc = sdlc_hub(ctx, "GET", path, NULL, out);
	free(path);
	return rc;
}

static int
wiki_sync(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o, *b = NULL, *v;
	long long		 id;
	int			 rc, queued;

	body = json_object_new_object();
	json_object_object_add(body, "project", json_object_new_string(ctx->project));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	rc = sdlc_hub(ctx, "POST", "/wiki/sync", body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	id = (long long)json_object_get_int64(json_object_object_get(o, "batch"));
	queued = json_object_get_boolean(json_object_object_get(o, "queued"));
	json_object_put(o);
	buf_printf(ctx->out, queued ? "синхронизация вики поставлена: пакет #%lld" :
	    "синхронизация вики уже идёт: пакет #%lld", id);
	if (!json_object_object_get_ex(args, "wait", &v) || !json_object_get_boolean(v))
		return 0;
	if ((rc = sdlc_batch_poll(ctx, id, WIKI_SYNC_WAIT, &b)) != 0)
		return rc;
	buf_printf(ctx->out, "\nпакет #%lld: %s", id,
	    sdlc_str(json_object_object_get(b, "batch"), "state", ""));
	json_object_put(b);
	if ((rc = wiki_status_get(ctx, &o)) != 0)
		return rc;
	buf_putc(ctx->out, '\n');
	wiki_status_view(ctx->out, o);
	json_object_put(o);
	return 0;
}

static int
wiki_status(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *a;
	int			 rc;

	(void)args;
	if ((rc = wiki_status_get(ctx, &o)) != 0)
		return rc;
	wiki_status_view(ctx->out, o);
	json_object_put(o);
	if ((rc = sdlc_hub(ctx, "GET", "/agent?module=wiki", NULL, &a)) != 0)
		return rc;
	buf_puts(ctx->out, "\nагент wiki:\n");
	sdlc_agent_view(ctx->out, a);
	json_object_put(a);
	return 0;
}

#define CODE_SCHEMA(what) \
    "\"code\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z][A-Za-z0-9_]{0,40}-[0-9]{1,18}$\"," \
    "\"description\":\"" what "\"}"

static const struct sdlc_tool wiki_tools[] = {
	{ "projects", "Проекты хаба",
	  "Проекты хаба: метка, название, корень вики, число страниц в копии и время последней "
	  "синхронизации; в привязанной сессии текущий проект отмечен.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	  SDLC_ANY | SDLC_READ, wiki_projects, NULL },
	{ "project_create", "Завести проект",
	  "Заводит проект в хабе (POST /projects, автор claude), с корнем вики — и ставит его "
	  "синхронизацию; отвечает проектом и фрагментом .mcp.json с записью sdlc-wiki (без "
	  "токена). Метка — заглавные латинские буквы, цифры и _.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"label\":{\"type\":\"string\",\"pattern\":\"^[A-Z][A-Z0-9_]{0,63}$\","
	  "\"description\":\"метка проекта, например AWPCA\"},"
	  "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
	  "\"description\":\"название проекта\"},"
	  "\"wiki_root\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":400,"
	  "\"description\":\"корень вики: код страницы (DOC-1) или владелец/репозиторий@ветка:DOC-1\"}},"
	  "\"required\":[\"label\",\"name\"],\"additionalProperties\":false}",
	  SDLC_ANY, wiki_project_create, NULL },
	{ "root_set", "Корень вики",
	  "Задаёт корень вики проекта сессии (PATCH /projects/<метка>) и ставит синхронизацию; "
	  "отвечает новым корнем и id пакета синхронизации.",
	  "{\"type\":\"object\",\"properties\":{\"root\":{\"type\":\"string\",\"minLength\":1,"
	  "\"maxLength\":400,\"description\":\"код страницы (DOC-1) или "
	  "владелец/репозиторий@ветка:DOC-1\"}},\"required\":[\"root\"],"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND, wiki_root_set, NULL },
	{ "tree", "Дерево вики",
	  "Дерево страниц от корня вики или от code, на depth уровней (по умолчанию 2): отступ, "
	  "код, название, размер в символах.",
	  "{\"type\":\"object\",\"properties\":{" CODE_SCHEMA("код страницы, от которой дерево") ","
	  "\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":64,\"default\":2}},"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_ROOT | SDLC_SYNCED | SDLC_READ, wiki_tree_tool, NULL },
	{ "page", "Страница вики",
	  "Страница по code или по точному title: шапка (код, путь в дереве, адрес в источнике, "
	  "дата синхронизации, вложения с id) и Markdown с offset (в символах) — не больше 20000 "
	  "символов, в конце «продолжение: offset=N», если текст длиннее. Неточный title — до 10 "
	  "кандидатов с кодами.",
	  "{\"type\":\"object\",\"properties\":{" CODE_SCHEMA("код страницы, например DOC-3") ","
	  "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":500,"
	  "\"description\":\"название страницы, точно\"},"
	  "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":2147483647,\"default\":0}},"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_ROOT | SDLC_SYNCED | SDLC_READ, wiki_page_tool, NULL },
	{ "search", "Поиск по вики",
	  "Полнотекстовый поиск по копии вики проекта: код, название, путь и фрагмент вокруг "
	  "найденного; лучшие первыми, не больше limit (по умолчанию 10). +слово, -слово, "
	  "\\\"фраза\\\" и слово* — булев режим.",
	  "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"minLength\":1,"
	  "\"maxLength\":500,\"description\":\"что искать\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":10}},"
	  "\"required\":[\"query\"],\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_ROOT | SDLC_SYNCED | SDLC_READ, wiki_search_tool, NULL },
	{ "attachment", "Вложение страницы",
	  "Вложение страницы по id из шапки page: ставит скачивание (агенту wiki), ждёт до "
	  "wait_seconds (по умолчанию 60) и отдаёт путь к копии, downloads/wiki-<id>/<имя>; "
	  "иначе состояние и подсказку вызвать ещё раз. Вложения больше 10 МБ — только в "
	  "источнике.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"description\":\"id вложения\"},\"wait_seconds\":{\"type\":\"integer\","
	  "\"minimum\":0,\"maximum\":60,\"default\":60,"
	  "\"description\":\"сколько ждать копию, с\"}},"
	  "\"required\":[\"id\"],\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_ROOT | SDLC_SYNCED, wiki_attachment_tool, NULL },
	{ "sync", "Синхронизировать вики",
	  "Ставит синхронизацию копии вики проекта с источником или сообщает о той, что уже идёт, "
	  "с id пакета; с wait ждёт до 300 с и отдаёт итог.",
	  "{\"type\":\"object\",\"properties\":{\"wait\":{\"type\":\"boolean\",\"default\":false}},"
	  "\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_ROOT, wiki_sync, NULL },
	{ "status", "Состояние вики",
	  "Корень вики, последняя синхронизация, её ошибка, пакет в работе и агент wiki: онлайн "
	  "или офлайн, версия, публикация, обновление, запускатель.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	  SDLC_BOUND | SDLC_READ, wiki_status, NULL },
};

const struct sdlc_module sdlc_wiki = {
	"wiki", "sdlc-wiki",
	"Копия вики проекта в хабе sdlc: дерево страниц с кодами (DOC-12), страницы частями по "
	"20000 символов, полнотекстовый поиск и синхронизация с источником. Сессия привязана к "
	"проекту ключом --project <метка>; без привязки работают projects и project_create.",
	wiki_tools, sizeof wiki_tools / sizeof wiki_tools[0], "module=wiki",
};
