/* wiki_page: the sdlc-wiki readers of the copy: tree, page, search (wiki-int.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/sdlc.h"
#include "sdlc/wiki-int.h"

#define WIKI_SNIPPET_MAX	200	/* characters of a search hit's snippet */

char *
wiki_q(struct sdlc_ctx *ctx)
{
	char	*x, *q = NULL;

	if ((x = hub_escape(ctx->project)) == NULL)
		return NULL;
	if (asprintf(&q, "?project=%s", x) < 0)
		q = NULL;
	free(x);
	return q;
}

/* GET path + the project + rest: the answer, as sdlc_hub. */
static int
wiki_get(struct sdlc_ctx *ctx, const char *path, const char *rest, struct json_object **o)
{
	struct buf	 q;
	char		*p;
	int		 rc;

	*o = NULL;
	if ((p = wiki_q(ctx)) == NULL)
		return 1;
	buf_init(&q);
	buf_printf(&q, "%s%s%s", path, p, rest != NULL ? rest : "");
	free(p);
	rc = q.oom ? 1 : sdlc_hub(ctx, "GET", q.data, NULL, o);
	buf_release(&q);
	return rc;
}

/* "&name=<escaped s>" onto q; -1 when out of memory. */
static int
wiki_arg(struct buf *q, const char *name, const char *s)
{
	char	*x;

	if ((x = hub_escape(s)) == NULL)
		return -1;
	buf_printf(q, "&%s=%s", name, x);
	free(x);
	return 0;
}

int
wiki_tree_tool(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *p, *v;
	struct buf		 rest;
	size_t			 i;
	int			 rc, d;

	buf_init(&rest);
	buf_printf(&rest, "&depth=%d", json_object_object_get_ex(args, "depth", &v) ?
	    json_object_get_int(v) : 2);
	if (json_object_object_get_ex(args, "code", &v) &&
	    wiki_arg(&rest, "code", json_object_get_string(v)) != 0) {
		buf_release(&rest);
		return 1;
	}
	rc = rest.oom ? 1 : wiki_get(ctx, "/wiki/tree", rest.data, &o);
	buf_release(&rest);
	if (rc != 0)
		return rc;
	list = sdlc_array(o, "pages");
	for (i = 0; i < json_object_array_length(list); i++) {
		p = json_object_array_get_idx(list, i);
		if (i > 0)
			buf_putc(ctx->out, '\n');
		for (d = json_object_get_int(json_object_object_get(p, "depth")); d > 0; d--)
			buf_puts(ctx->out, "  ");
		buf_printf(ctx->out, "%s %s (%s симв.)", sdlc_str(p, "code", ""),
		    sdlc_str(p, "title", ""), sdlc_str(p, "chars", "0"));
	}
	json_object_put(o);
	return 0;
}

/* The page's header: code and title, path, address, sync date, attachments, the range. */
static void
wiki_header(struct buf *out, struct json_object *o)
{
	struct json_object	*p = json_object_object_get(o, "page"), *a, *x;
	int64_t			 off = json_object_get_int64(json_object_object_get(o, "offset"));
	int64_t			 chars = json_object_get_int64(json_object_object_get(p, "chars"));
	int64_t			 end = chars;
	size_t			 i, n;

	if (json_object_object_get(o, "next") != NULL)
		end = json_object_get_int64(json_object_object_get(o, "next"));
	buf_printf(out, "%s · %s\nпуть: %s\nадрес: %s\nсинхронизирована: ",
	    sdlc_str(p, "code", ""), sdlc_str(p, "title", ""), sdlc_str(p, "path", ""),
	    sdlc_str(p, "source", "—"));
	sdlc_time(out, sdlc_str(p, "synced", NULL), 1);
	a = sdlc_array(p, "attachments");
	n = json_object_array_length(a);
	buf_puts(out, n == 0 ? "\nвложений нет" : "\nвложения:");
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(a, i);
		buf_printf(out, " %s#%s %s (", i ? "· " : "", sdlc_str(x, "id", ""),
		    sdlc_str(x, "name", ""));
		sdlc_size(out, (uint64_t)json_object_get_int64(json_object_object_get(x, "size")));
		buf_putc(out, ')');
	}
	buf_printf(out, "\nсимволы %" PRId64 "–%" PRId64 " из %" PRId64, off, end, chars);
}

int
wiki_page_tool(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *code = NULL, *title = NULL, *v, *list, *c;
	struct buf		 path, rest;
	char			*x;
	size_t			 i;
	int			 rc;

	json_object_object_get_ex(args, "code", &code);
	json_object_object_get_ex(args, "title", &title);
	if ((code == NULL) == (title == NULL)) {
		buf_puts(ctx->out, "нужен либо code, либо title");
		return 1;
	}
	buf_init(&path);
	if (code != NULL) {
		if ((x = hub_escape(json_object_get_string(code))) == NULL)
			return 1;
		buf_printf(&path, "/wiki/pages/%s", x);
		free(x);
	} else
		buf_puts(&path, "/wiki/pages");
	v = json_object_object_get(args, "offset");
	buf_init(&rest);
	buf_printf(&rest, "&offset=%" PRId64 "&limit=%d", v != NULL ? json_object_get_int64(v) :
	    (int64_t)0, WIKI_PIECE);
	if (title != NULL && wiki_arg(&rest, "title", json_object_get_string(title)) != 0)
		rest.oom = 1;
	rc = rest.oom || path.oom ? 1 : wiki_get(ctx, path.data, rest.data, &o);
	buf_release(&rest);
	buf_release(&path);
	if (rc != 0)
		return rc;
	if (json_object_object_get(o, "candidates") != NULL) {
		list = sdlc_array(o, "candidates");
		if (json_object_array_length(list) == 0)
			buf_printf(ctx->out, "страницы с названием «%s» нет, похожих тоже",
			    json_object_get_string(title));
		else
			buf_printf(ctx->out, "страницы с названием «%s» нет; похожие (%zu):",
			    json_object_get_string(title), json_object_array_length(list));
		for (i = 0; i < json_object_array_length(list); i++) {
			c = json_object_array_get_idx(list, i);
			buf_printf(ctx->out, "\n%s %s — %s", sdlc_str(c, "code", ""),
			    sdlc_str(c, "title", ""), sdlc_str(c, "path", ""));
		}
		json_object_put(o);
		return 1;
	}
	wiki_header(ctx->out, o);
	buf_printf(ctx->out, "\n\n%s", sdlc_str(o, "text", ""));
	if (json_object_object_get(o, "next") != NULL) {
		buf_puts(ctx->out, "\n\n");
		sdlc_say(ctx->out, HT_WIKI_MORE, sdlc_str(o, "next", ""));
	}
	json_object_put(o);
	return 0;
}

int
wiki_search_tool(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *p, *v;
	struct buf		 rest;
	size_t			 i, n;
	int			 rc;

	buf_init(&rest);
	if (wiki_arg(&rest, "q", json_object_get_string(json_object_object_get(args, "query")))
	    != 0) {
		buf_release(&rest);
		return 1;
	}
	buf_printf(&rest, "&limit=%d", json_object_object_get_ex(args, "limit", &v) ?
	    json_object_get_int(v) : 10);
	rc = rest.oom ? 1 : wiki_get(ctx, "/wiki/search", rest.data, &o);
	buf_release(&rest);
	if (rc != 0)
		return rc;
	list = sdlc_array(o, "pages");
	n = json_object_array_length(list);
	if (n == 0)
		buf_printf(ctx->out, "по запросу «%s» ничего не нашлось",
		    json_object_get_string(json_object_object_get(args, "query")));
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(list, i);
		buf_printf(ctx->out, "%s%s · %s\n  %s\n  %s", i ? "\n" : "", sdlc_str(p, "code", ""),
		    sdlc_str(p, "title", ""), sdlc_str(p, "path", ""),
		    json_object_get_int64(json_object_object_get(p, "at")) > 1 ? "…" : "");
		/* the hub cuts at WIKI_SNIPPET_MAX: a full snippet goes on */
		sdlc_cut(ctx->out, sdlc_str(p, "snippet", ""), WIKI_SNIPPET_MAX - 1, 1);
	}
	json_object_put(o);
	return 0;
}
