/* web_search: result links with snippets from the configured web search provider (spec: web_search). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "err.h"
#include "json.h"
#include "store/websearch.h"
#include "tool.h"

#define WS_DEFAULT_COUNT	5

/* count takes any number: out-of-range values are clamped, never refused (spec). */
static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"query\"],"
    "\"properties\":{"
    "\"query\":{\"type\":\"string\",\"maxLength\":400,"
    "\"description\":\"What to search the web for.\"},"
    "\"count\":{\"type\":\"number\",\"default\":5,"
    "\"description\":\"How many results to return: 1 to 10, default 5; other values are "
    "clamped into that range.\"}"
    "}}";

/* The count argument clamped to 1..10; WS_DEFAULT_COUNT when absent. */
static int
ws_count(struct json_object *args)
{
	struct json_object	*c = json_get(args, "count");
	double			 d;
	int64_t			 l;

	if (json_is_type(c, json_type_int)) {
		l = json_object_get_int64(c);
		return l < WEBSEARCH_COUNT_MIN ? WEBSEARCH_COUNT_MIN :
		    l > WEBSEARCH_COUNT_MAX ? WEBSEARCH_COUNT_MAX : (int)l;
	}
	if (json_is_type(c, json_type_double)) {
		d = json_object_get_double(c);
		if (isnan(d))
			return WS_DEFAULT_COUNT;
		return d < WEBSEARCH_COUNT_MIN ? WEBSEARCH_COUNT_MIN :
		    d > WEBSEARCH_COUNT_MAX ? WEBSEARCH_COUNT_MAX : (int)d;
	}
	return WS_DEFAULT_COUNT;
}

/* Whether s holds anything but blanks. */
static int
blank(const char *s)
{
	for (; *s != '\0'; s++)
		if (strchr(" \t\r\n\v\f", *s) == NULL)
			return 0;
	return 1;
}

/* Adds key: a new string s to o; -1 on allocation failure. */
static int
add_str(struct json_object *o, const char *key, const char *s)
{
	struct json_object	*v;

	if ((v = json_object_new_string(s)) == NULL)
		return -1;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int
web_search(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct json_object	*arr = NULL, *item = NULL;
	struct websearch_result	*v = NULL;
	const struct config	*cfg = ctx->cfg;
	const char		*query = json_get_str(args, "query");
	size_t			 n = 0, i;
	int			 rc;

	*out = NULL;
	if (blank(query)) {
		rc = err_set(ctx->err, ERR_INVALID, "missing query: pass the text to search for "
		    "in \"query\"");
		goto done;
	}
	/* a set-up problem is reported before a search is counted */
	if ((rc = websearch_check(cfg, ctx->err)) != 0)
		goto done;
	if ((rc = db_websearch_admit(ctx->db, ctx->who->user_id, cfg->search_hourly_limit,
	    NULL, ctx->err)) != 0)
		goto done;
	if ((rc = websearch_run(&v, &n, cfg, query, ws_count(args), ctx->err)) != 0)
		goto done;
	if ((arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		if ((item = json_object_new_object()) == NULL ||
		    add_str(item, "title", v[i].title) != 0 ||
		    add_str(item, "url", v[i].url) != 0 ||
		    add_str(item, "snippet", v[i].description) != 0 ||
		    json_object_array_add(arr, item) != 0)
			goto nomem;
		item = NULL;
	}
	*out = arr;
	arr = NULL;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(item);
	json_object_put(arr);
	websearch_results_free(v, n);
	return rc;
}

const struct tool tool_web_search = {
	.name = "web_search",
	.title = "Search the web",
	.description =
	    "Search the public web and get result links with snippets, to find pages worth "
	    "reading. \"count\" is how many results (1 to 10, default 5). Returns an array "
	    "of {title, url, snippet}. Searches are limited per user per hour; when the "
	    "limit is reached the error says when the next search is allowed.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY | TOOL_OPEN_WORLD,
	.toolset = "search",
	.handler = web_search,
};
