/* mark_notification_read: marks one of the caller's notifications, or all, read. */
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "tool.h"
#include "tools/toolkit.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"properties\":{"
    "\"id\":{\"type\":\"integer\",\"minimum\":1,"
    "\"description\":\"The id of one notification to mark read (see list_inbox). Give "
    "either id or all, not both.\"},"
    "\"all\":{\"type\":\"boolean\","
    "\"description\":\"true: mark every one of your notifications read. Give either id or "
    "all, not both.\"}"
    "}}";

static int
mark_notification_read(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct json_object	*o = NULL;
	int			 has_id = json_get(args, "id") != NULL;
	int			 has_all = json_get(args, "all") != NULL;
	uint64_t		 marked = 0, id = 0;
	int64_t			 unread = 0;
	int			 rc;

	*out = NULL;
	if (has_id && has_all)
		return err_set(ctx->err, ERR_INVALID, "give either id (one notification) or "
		    "all: true (every notification), not both");
	if (!has_id && !has_all)
		return err_set(ctx->err, ERR_INVALID, "say which notifications to mark read: "
		    "id (one notification, from list_inbox) or all: true (every notification)");
	if (has_all && !tk_bool(args, "all", 0))
		return err_set(ctx->err, ERR_INVALID, "all must be true to mark every "
		    "notification read; to mark one, give its id instead");
	if (has_id)
		id = (uint64_t)tk_int(args, "id", 0);
	if ((rc = notify_mark_read(ctx->db, &marked, &unread, ctx->who->user_id, id,
	    ctx->err)) != 0)
		return rc;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "marked", json_object_new_int64((int64_t)marked)) != 0 ||
	    tk_add(o, "unread_count", json_object_new_int64(unread)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

const struct tool tool_mark_notification_read = {
	.name = "mark_notification_read",
	.title = "Mark notifications read",
	.description =
	    "Mark one of your notifications read by its id (from list_inbox), or all of them "
	    "with all: true; give exactly one of id and all. Marking a notification that is "
	    "already read succeeds and keeps the time it was first read. Returns {marked: how "
	    "many were unread until this call, unread_count: how many unread remain}. Needs "
	    "the write scope.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "notifications",
	.handler = mark_notification_read,
};
