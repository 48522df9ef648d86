/* jira_batches: the sdlc-jira tools of batches (jira-int.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "buf.h"
#include "hub/commands.h"
#include "sdlc/jira-int.h"
#include "sdlc/sdlc.h"

void
jira_batch_describe(struct buf *out)
{
	hub_commands_describe(out);
}

/* Seconds as whole minutes, rounded up, at least 1 for anything left. */
static long
jira_minutes(int64_t seconds)
{
	return seconds <= 0 ? 0 : (long)((seconds + 59) / 60);
}

/* The answer to a batch queued: its id, its commands, the estimate in minutes. */
static void
jira_queued(struct buf *out, struct json_object *o)
{
	buf_printf(out, "пакет #%s поставлен: команд — %s, оценка — %ld мин "
	    "(estimate_seconds %s)", sdlc_str(o, "id", "?"), sdlc_str(o, "commands", "?"),
	    jira_minutes(json_object_get_int64(json_object_object_get(o, "estimate_seconds"))),
	    sdlc_str(o, "estimate_seconds", "0"));
}

int
jira_batch_create(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o, *commands = NULL;
	int			 rc;

	if (json_object_deep_copy(sdlc_array(args, "commands"), &commands,
	    NULL) != 0)
		return 1;
	if ((rc = jira_upload_paths(ctx, commands)) != 0) {
		json_object_put(commands);
		return rc;
	}
	body = json_object_new_object();
	json_object_object_add(body, "project", json_object_new_string(ctx->project));
	json_object_object_add(body, "title", json_object_get(json_object_object_get(args, "title")));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	json_object_object_add(body, "commands", commands);
	rc = sdlc_hub(ctx, "POST", "/batches", body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	jira_queued(ctx->out, o);
	json_object_put(o);
	return 0;
}

/* The batch view: its head line, a line a command, what is left. */
void
jira_batch_view(struct buf *out, struct json_object *b)
{
	struct json_object	*cmds, *c;
	const char		*error;
	size_t			 i;

	buf_printf(out, "пакет #%s «%s» (проект %s, автор %s, создан ", sdlc_str(b, "id", ""),
	    sdlc_str(b, "title", ""), sdlc_str(b, "project", "—"), sdlc_str(b, "author", ""));
	sdlc_time(out, sdlc_str(b, "created", NULL), 1);
	buf_printf(out, "): %s", sdlc_str(b, "state", ""));
	cmds = sdlc_array(b, "commands");
	for (i = 0; i < json_object_array_length(cmds); i++) {
		c = json_object_array_get_idx(cmds, i);
		buf_printf(out, "\n#%s %s — %s", sdlc_str(c, "id", ""), sdlc_str(c, "type", ""),
		    sdlc_str(c, "state", ""));
		if ((error = sdlc_str(c, "error", NULL)) != NULL)
			buf_printf(out, ": %s", error);
	}
	buf_printf(out, "\nоценка остатка: %ld мин",
	    jira_minutes(json_object_get_int64(json_object_object_get(b, "estimate_seconds"))));
}

int
jira_batch_status(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o;
	char			 path[64];
	int			 rc;

	snprintf(path, sizeof path, "/batches/%" PRId64,
	    json_object_get_int64(json_object_object_get(args, "id")));
	if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
		return rc;
	jira_batch_view(ctx->out, json_object_object_get(o, "batch"));
	json_object_put(o);
	return 0;
}

int
jira_batches(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *list, *b, *v;
	struct buf		 q;
	char			*label;
	size_t			 i, n;
	int			 rc;

	buf_init(&q);
	buf_printf(&q, "/batches?limit=%d", json_object_object_get_ex(args, "limit", &v) ?
	    json_object_get_int(v) : 20);
	if (ctx->project != NULL) {
		if ((label = hub_escape(ctx->project)) == NULL) {
			buf_release(&q);
			return 1;
		}
		buf_printf(&q, "&project=%s", label);
		free(label);
	}
	rc = q.oom ? 1 : sdlc_hub(ctx, "GET", q.data, NULL, &o);
	buf_release(&q);
	if (rc != 0)
		return rc;
	list = sdlc_array(o, "batches");
	n = json_object_array_length(list);
	buf_puts(ctx->out, n == 0 ? "пакетов нет" :
	    "id | проект | название | состояние | команд | создан");
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(list, i);
		buf_printf(ctx->out, "\n%s | %s | %s | %s | %s | ", sdlc_str(b, "id", ""),
		    sdlc_str(b, "project", "—"), sdlc_str(b, "title", ""), sdlc_str(b, "state", ""),
		    sdlc_str(b, "commands", "0"));
		sdlc_time(ctx->out, sdlc_str(b, "created", NULL), 1);
	}
	json_object_put(o);
	return 0;
}

#define JIRA_POLL_SECONDS	1	/* how often a waiting tool asks the hub */

/* Whether a batch's state is final. */
static int
jira_final(const char *state)
{
	return strcmp(state, "done") == 0 || strcmp(state, "failed") == 0 ||
	    strcmp(state, "cancelled") == 0;
}

/*
 * Waits for batch id to end, at most minutes, asking the hub every
 * JIRA_POLL_SECONDS with a short request (no hub worker waits), then
 * writes its view, and a line when it had not ended.
 */
static int
jira_wait(struct sdlc_ctx *ctx, int64_t id, int64_t minutes)
{
	struct json_object	*o = NULL, *b;
	struct timespec		 t0, now;
	char			 path[64];
	int			 rc;

	snprintf(path, sizeof path, "/batches/%" PRId64, id);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if ((rc = sdlc_hub(ctx, "GET", path, NULL, &o)) != 0)
			return rc;
		b = json_object_object_get(o, "batch");
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (jira_final(sdlc_str(b, "state", "")) || now.tv_sec - t0.tv_sec >= minutes * 60)
			break;
		json_object_put(o);
		o = NULL;
		sleep(JIRA_POLL_SECONDS);
	}
	jira_batch_view(ctx->out, b);
	if (!jira_final(sdlc_str(b, "state", "")))
		buf_printf(ctx->out, "\nпакет ещё не завершён: ждал %" PRId64 " мин; "
		    "batch_wait или batch_status позже", minutes);
	json_object_put(o);
	return 0;
}

int
jira_batch_wait(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*v;

	return jira_wait(ctx, json_object_get_int64(json_object_object_get(args, "id")),
	    json_object_object_get_ex(args, "timeout_minutes", &v) ? json_object_get_int64(v) : 10);
}

int
jira_refresh(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *cmds, *cmd, *o, *keys = NULL, *full = NULL, *v;
	int64_t			 id;
	int			 rc;

	json_object_object_get_ex(args, "keys", &keys);
	json_object_object_get_ex(args, "full", &full);
	if (full != NULL && !json_object_get_boolean(full))
		full = NULL;
	if ((keys == NULL) == (full == NULL)) {
		buf_puts(ctx->out, "нужен либо keys, либо full: true");
		return 1;
	}
	cmd = json_object_new_object();
	json_object_object_add(cmd, "type", json_object_new_string("refresh"));
	if (keys != NULL)
		json_object_object_add(cmd, "keys", json_object_get(keys));
	else
		json_object_object_add(cmd, "full", json_object_new_boolean(1));
	cmds = json_object_new_array();
	json_object_array_add(cmds, cmd);
	body = json_object_new_object();
	json_object_object_add(body, "project", json_object_new_string(ctx->project));
	json_object_object_add(body, "title", json_object_new_string(keys != NULL ?
	    "обновление задач" : "полное обновление"));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	json_object_object_add(body, "commands", cmds);
	rc = sdlc_hub(ctx, "POST", "/batches", body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	id = json_object_get_int64(json_object_object_get(o, "id"));
	json_object_put(o);
	if (json_object_object_get_ex(args, "wait", &v) && json_object_get_boolean(v))
		return jira_wait(ctx, id, 10);
	buf_printf(ctx->out, "пакет обновления #%" PRId64 " поставлен", id);
	return 0;
}

int
jira_batch_cancel(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*o, *b, *cmds, *c;
	char			 path[64], line[300];
	size_t			 i;
	int			 rc;

	snprintf(path, sizeof path, "/batches/%" PRId64 "/cancel",
	    json_object_get_int64(json_object_object_get(args, "id")));
	if ((rc = sdlc_hub(ctx, "POST", path, NULL, &o)) != 0)
		return rc;
	b = json_object_object_get(o, "batch");
	jira_batch_view(ctx->out, b);
	cmds = sdlc_array(b, "commands");
	for (i = 0; i < json_object_array_length(cmds); i++) {
		c = json_object_array_get_idx(cmds, i);
		if (strcmp(sdlc_str(c, "state", ""), "claimed") != 0)
			continue;
		hub_textf(line, sizeof line, HT_AT_AGENT,
		    (unsigned long long)json_object_get_int64(json_object_object_get(c, "id")),
		    (unsigned long long)json_object_get_int64(json_object_object_get(c, "id")));
		buf_printf(ctx->out, "\n%s", line);
	}
	json_object_put(o);
	return 0;
}

int
jira_command_retry(struct sdlc_ctx *ctx, struct json_object *args)
{
	struct json_object	*body, *o;
	char			 path[64];
	int			 rc;

	snprintf(path, sizeof path, "/commands/%" PRId64 "/retry",
	    json_object_get_int64(json_object_object_get(args, "id")));
	body = json_object_new_object();
	json_object_object_add(body, "project", json_object_new_string(ctx->project));
	json_object_object_add(body, "author", json_object_new_string("claude"));
	rc = sdlc_hub(ctx, "POST", path, body, &o);
	json_object_put(body);
	if (rc != 0)
		return rc;
	jira_queued(ctx->out, o);
	json_object_put(o);
	return 0;
}
