/* list_inbox: the caller's notifications, newest first, 50 a page (spec: list_inbox). */
#include <stdio.h>
#include <json-c/json.h>

#include "conf.h"
#include "auth.h"
#include "err.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

#define INBOX_PAGE	50

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"properties\":{"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Which page of 50 notifications, from 1 (the newest; default 1).\"},"
    "\"unread\":{\"type\":\"boolean\",\"default\":false,"
    "\"description\":\"true: only the notifications not yet marked read (default false: "
    "all of them).\"}"
    "}}";

/* One notification as the tool shows it. */
static struct json_object *
entry(struct tool_ctx *ctx, const struct forge_notification *n)
{
	struct json_object	*o = NULL, *subj = NULL;
	char			 full[170], url[2048], link[2200];

	snprintf(full, sizeof full, "%s/%s", n->owner, n->name);
	fout_item_url(url, sizeof url, ctx->cfg->base_url, n->owner, n->name, n->kind,
	    n->number);
	if (n->comment_id != 0)
		snprintf(link, sizeof link, "%s#issuecomment-%llu", url,
		    (unsigned long long)n->comment_id);
	else
		snprintf(link, sizeof link, "%s", url);
	if ((subj = json_object_new_object()) == NULL ||
	    tk_add(subj, "type", json_object_new_string(n->kind == FORGE_KIND_PULL ?
	    "pull_request" : "issue")) != 0 ||
	    tk_add(subj, "number", json_object_new_int64(n->number)) != 0 ||
	    fout_add_str_or_null(subj, "title", n->title) != 0)
		goto fail;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "id", json_object_new_int64((int64_t)n->id)) != 0 ||
	    tk_add(o, "reason", json_object_new_string(n->reason)) != 0 ||
	    tk_add(o, "unread", json_object_new_boolean(n->read_at[0] == '\0')) != 0 ||
	    tk_add(o, "repo", json_object_new_string(full)) != 0)
		goto fail;
	if (tk_add(o, "subject", subj) != 0) {
		subj = NULL;
		goto fail;
	}
	subj = NULL;
	if (tk_add(o, "actor", json_object_new_string(n->actor)) != 0 ||
	    tk_add(o, "url", json_object_new_string(link)) != 0 ||
	    tk_add(o, "created_at", json_object_new_string(n->created_at)) != 0 ||
	    fout_add_str_or_null(o, "read_at", n->read_at) != 0)
		goto fail;
	return o;
fail:
	json_object_put(subj);
	json_object_put(o);
	return NULL;
}

static int
list_inbox(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct forge_notification	*v = NULL;
	struct json_object		*o = NULL, *arr = NULL, *one;
	struct err			 local;
	int64_t				 page = tk_int(args, "page", 1), unread = 0;
	size_t				 n = 0, i;
	int				 rc;

	*out = NULL;
	err_clear(&local);
	if ((rc = forge_notification_list(ctx->db, &v, &n, ctx->who->user_id,
	    tk_bool(args, "unread", 0), (page - 1) * INBOX_PAGE, INBOX_PAGE + 1, &local)) != 0 ||
	    (rc = forge_notification_unread(ctx->db, &unread, ctx->who->user_id,
	    &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((o = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < n && i < INBOX_PAGE; i++) {
		if ((one = entry(ctx, &v[i])) == NULL)
			goto nomem;
		if (json_object_array_add(arr, one) != 0) {
			json_object_put(one);
			goto nomem;
		}
	}
	rc = tk_page(o, "notifications", arr, page, n > INBOX_PAGE);
	arr = NULL;
	if (rc != 0 || tk_add(o, "unread_count", json_object_new_int64(unread)) != 0)
		goto nomem;
	*out = o;
	o = NULL;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(arr);
	json_object_put(o);
	forge_notification_list_free(v, n);
	return rc;
}

const struct tool tool_list_inbox = {
	.name = "list_inbox",
	.title = "List your notifications",
	.description =
	    "List your notifications, newest first, 50 a page; unread: true keeps the unread "
	    "ones. reason says why you got one: mention, comment on your issue or pull "
	    "request, reply in your discussion, merged for your pull request, "
	    "review_requested. Notifications from a repository you can no longer read are not "
	    "listed. Returns {notifications: [{id, reason, unread, repo, subject: {type: "
	    "issue|pull_request, number, title}, actor, url, created_at, read_at}], page, "
	    "has_more, unread_count}. Mark them read with mark_notification_read.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "notifications",
	.handler = list_inbox,
};
