/*
 * wiki_attachment: the sdlc-wiki `attachment` tool.  It asks the hub for
 * its copy of the attachment (POST /wiki/attachments/{id}/fetch, which
 * queues a wiki_fetch command for the wiki agent unless the copy is ready
 * or on its way), waits for it (a GET a second, at most wait_seconds),
 * and writes it under <data directory>/downloads/wiki-<id>/<name>
 * (sdlc_download).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "buf.h"
#include "sdlc/client.h"
#include "sdlc/sdlc.h"
#include "sdlc/wiki-int.h"

#define WIKI_WAIT_DEFAULT	60	/* seconds */

/* Downloads the hub's copy into downloads/wiki-<id>/<name> and answers its path and line. */
static int
wiki_save(struct sdlc_ctx *ctx, struct json_object *a, const char *q)
{
	const char	*id = sdlc_str(a, "id", "0");
	uint64_t	 size = (uint64_t)json_object_get_int64(json_object_object_get(a, "size"));
	char		 dir[64], url[128], path[4096];
	int		 rc;

	snprintf(dir, sizeof dir, "wiki-%s", id);
	snprintf(url, sizeof url, "/wiki/attachments/%s/content%s", id, q);
	if ((rc = sdlc_download(ctx, dir, id, sdlc_str(a, "name", ""), size, url, path,
	    sizeof path)) != 0)
		return rc;
	buf_printf(ctx->out, "%s\n%s (", path, sdlc_str(a, "name", ""));
	sdlc_size(ctx->out, size);
	buf_printf(ctx->out, "), %s, страница %s", sdlc_str(a, "mime", ""), sdlc_str(a, "page", ""));
	return 0;
}

int
wiki_attachment_tool(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o = NULL, *a, *w;
	struct timespec		 t0, now;
	const char		*state;
	char			 path[160], *q;
	long			 wait = WIKI_WAIT_DEFAULT;
	int64_t			 id = json_object_get_int64(json_object_object_get(args, "id"));
	int			 rc, queued;

	if (json_object_object_get_ex(args, "wait_seconds", &w))
		wait = (long)json_object_get_int64(w);
	if (!sdlc_can_save(ctx))
		return 1;
	if ((q = wiki_q(ctx)) == NULL)
		return 1;
	snprintf(path, sizeof path, "/wiki/attachments/%" PRId64 "/fetch%s", id, q);
	if ((rc = sdlc_hub(ctx, "POST", path, NULL, &o)) != 0)
		goto done;
	queued = json_object_get_boolean(json_object_object_get(o, "queued"));
	snprintf(path, sizeof path, "/wiki/attachments/%" PRId64 "%s", id, q);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		a = json_object_object_get(o, "attachment");
		state = sdlc_str(a, "state", "");
		if (strcmp(state, "ready") == 0) {
			rc = wiki_save(ctx, a, q);
			goto done;
		}
		if (strcmp(state, "failed") == 0) {
			buf_printf(ctx->out, "вложение #%s «%s» (страница %s) не скачано: %s — "
			    "вызовите attachment ещё раз, чтобы повторить", sdlc_str(a, "id", ""),
			    sdlc_str(a, "name", ""), sdlc_str(a, "page", ""),
			    sdlc_str(a, "error", "причина не сказана"));
			rc = 1;
			goto done;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= wait)
			break;
		json_object_put(o);
		o = NULL;
		sleep(1);
		if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
			goto done;
	}
	buf_printf(ctx->out, "вложение #%s «%s» (страница %s) ещё скачивается: команда %s%s, "
	    "ждали %ld с; агент wiki выполнит её, когда будет онлайн (status) — вызовите "
	    "attachment позже, вторая команда не поставится", sdlc_str(a, "id", ""),
	    sdlc_str(a, "name", ""), sdlc_str(a, "page", ""), sdlc_str(a, "command", "—"),
	    queued ? " (поставлена сейчас)" : "", wait);
	rc = 1;
done:
	json_object_put(o);
	free(q);
	return rc;
}
