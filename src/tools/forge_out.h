/* forge_out: what the issue and pull request tools share: urls, JSON output. */
#ifndef FM_FORGE_OUT_H
#define FM_FORGE_OUT_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "store/forge.h"
#include "tools/toolkit.h"

struct db_repo;
struct tool_ctx;

#define FOUT_PAGE	50	/* list entries per page */

/* The schema of get_issue's and get_pull_request's argument page (the activity's page). */
#define FOUT_PAGE_ARG \
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1," \
    "\"description\":\"Page of the activity, 50 entries a page, from 1.\"}"

/*
 * The web address of a repository's page: base_url + "/owner/name" +
 * suffix (e.g. "/issues/3"), into buf of len bytes.
 */
void	fout_url(char *buf, size_t len, const char *base_url, const char *owner,
	    const char *name, const char *suffix);
/* An issue's or pull request's address ("/issues/N" or "/pulls/N"). */
void	fout_item_url(char *buf, size_t len, const char *base_url, const char *owner,
	    const char *name, enum forge_kind kind, int64_t number);
/* Adds s, or JSON null when s is NULL or "". */
int	fout_add_str_or_null(struct json_object *o, const char *key, const char *s);

/*
 * Lists issues or pull requests of ctx->repo for list_issues /
 * list_pull_requests: arguments state, query and page (from 1, FOUT_PAGE
 * a page); the result object is {<key>: [{number, title, state, author,
 * url, ...}], page, has_more}.
 */
int	fout_list(struct tool_ctx *ctx, struct json_object *args, enum forge_kind kind,
	    struct json_object **out);

/*
 * Builds the common part of get_issue / get_pull_request into *out:
 * number, title, state, author, body, url, dates, edit_version (head and
 * base for pull requests), then the comments oldest first, at most
 * comments_limit from comments_offset, with comments_total,
 * comments_truncated and next_comments_offset, then activity {entries,
 * page, has_more}: the page of the argument page (FOUT_PAGE_ARG).
 */
int	fout_item(struct tool_ctx *ctx, struct json_object *args, const struct db_repo *repo,
	    const struct forge_item *it, enum forge_kind kind, struct json_object **out);

/*
 * Looks number up as kind; when the number belongs to the other kind the
 * ERR_NOTFOUND message says which tool reads it.
 */
int	fout_find(struct tool_ctx *ctx, struct forge_item *out, const struct db_repo *repo,
	    enum forge_kind kind, int64_t number);

/*
 * close_issue (close 1) and reopen_issue (close 0) on ctx->repo: argument
 * number; the result object is {number, state, changed, url}.  In
 * close_issue.c.
 */
int	fout_issue_state(struct tool_ctx *ctx, struct json_object *args, int close,
	    struct json_object **out);

/*
 * One review discussion of pull request number as the discussion tools
 * show it: {id, author, state, state_version, version, path, line, side,
 * then full ? body, anchor_context : preview, preview_truncated,
 * recent_replies; replies_count, url, created_at, updated_at}.  In
 * list_pull_request_discussions.c.
 */
int	fout_discussion(struct tool_ctx *ctx, const struct db_repo *repo, int64_t number,
	    const struct forge_discussion *d, int full, struct json_object **out);
/*
 * resolve_pull_request_discussion (resolve 1) and
 * reopen_pull_request_discussion (resolve 0) on ctx->repo: arguments
 * number, discussion, state_version; the result is {id, number, state,
 * state_version, changed, url}.  In resolve_pull_request_discussion.c.
 */
int	fout_discussion_state(struct tool_ctx *ctx, struct json_object *args, int resolve,
	    struct json_object **out);

/* The arguments of resolve_ and reopen_pull_request_discussion. */
#define FOUT_DISCUSSION_STATE_SCHEMA \
    "{\"type\":\"object\",\"additionalProperties\":false," \
    "\"required\":[\"repo\",\"number\",\"discussion\",\"state_version\"]," \
    "\"properties\":{" \
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166," \
    "\"description\":\"owner/name.\"}," \
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647," \
    "\"description\":\"The pull request number.\"}," \
    "\"discussion\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9007199254740991," \
    "\"description\":\"The discussion id.\"}," \
    "\"state_version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295," \
    "\"description\":\"The state_version list_pull_request_discussions " \
    "showed you.\"}" \
    "}}"

#endif
