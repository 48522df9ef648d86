/* jira-int: the sdlc-jira tools kept beside jira.c (jira_batches.c). */
#ifndef FM_SDLC_JIRA_INT_H
#define FM_SDLC_JIRA_INT_H
#include <json-c/json.h>

#include "buf.h"

struct sdlc_ctx;

int	jira_batch_create(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_batch_status(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_batches(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_batch_wait(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_refresh(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_batch_cancel(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_command_retry(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_notes_set(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_settings_get(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_settings_set(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_sync_log(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_agent_status(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_changes(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_attachment(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_sprints(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_sprint(struct sdlc_ctx *ctx, struct json_object *args);
int	jira_backlog(struct sdlc_ctx *ctx, struct json_object *args);
/* GET /issues/{key}: *o the answer (to put), *issue its issue; or the hub's refusal. */
int	jira_get_issue(struct sdlc_ctx *ctx, const char *key, struct json_object **o,
	    struct json_object **issue);
/*
 * batch_create's ensure_attachment commands with a path: every file
 * checked and read first (nothing uploaded when one is refused), then each
 * uploaded and its command given file and filename instead.  0, 1 with
 * the reason in ctx->out, or SDLC_DOWN.
 */
int	jira_upload_paths(struct sdlc_ctx *ctx, struct json_object *commands);
/* The card's «вложения (N):» or «вложений нет». */
void	jira_card_attachments(struct buf *out, struct json_object *it);
/* «файлы: #<id> <имя>, …» of comment (its id) when attachments refer to it. */
void	jira_card_files(struct buf *out, struct json_object *it, const char *comment);
/* The card's «изменения (N):», its latest journal rows (nothing without any). */
void	jira_card_changes(struct buf *out, struct json_object *it);
/* Notes as the card and notes_set show them (key NULL: no key in the head line). */
void	jira_notes_view(struct buf *out, const char *key, struct json_object *notes);
/* A batch's view (batch_status, batch_wait, batch_cancel). */
void	jira_batch_view(struct buf *out, struct json_object *batch);
/* batch_create's description, from the hub's command registry. */
void	jira_batch_describe(struct buf *out);

#endif
