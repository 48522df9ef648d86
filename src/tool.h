/* tool: the tool registry and the tool gate (lookup, scope, schema, target, handler). */
#ifndef FM_TOOL_H
#define FM_TOOL_H
#include <stddef.h>
#include <json-c/json.h>
#include "auth.h"
#include "err.h"
#include "store/forge.h"

struct budget;
struct config;
struct db;
struct db_repo;
struct repo_cache;
struct schema;

enum tool_hint {
	TOOL_READ_ONLY = 1 << 0,	/* readOnlyHint */
	TOOL_DESTRUCTIVE = 1 << 1,	/* destructiveHint */
	TOOL_IDEMPOTENT = 1 << 2,	/* idempotentHint */
	TOOL_OPEN_WORLD = 1 << 3,	/* openWorldHint */
};

/* What a tool acts on, resolved and authorised by the gate before its handler runs. */
enum tool_target {
	TOOL_TARGET_NONE,	/* TOOL_TARGET_NONE: the caller's own things, or nothing */
	TOOL_TARGET_REPO,	/* TOOL_TARGET_REPO: the repository named by the "repo" argument */
	TOOL_TARGET__MAX
};

/*
 * What a handler gets: the handles it may use, the caller, the target the
 * gate resolved, an error slot.
 */
struct tool_ctx {
	struct db		*db;		/* the database connection */
	struct repo_cache	*repos;		/* the open repositories */
	const struct config	*cfg;
	const struct principal	*who;		/* the caller */
	const struct db_repo	*repo;		/* TOOL_TARGET_REPO: visible to who; else NULL */
	struct budget		*budget;	/* the request's deadline and search steps; NULL: none */
	struct err		*err;
};

/*
 * A handler receives arguments that passed the schema (defaults are not
 * filled in) and, for a repository target, the repository the caller may
 * see and holds the tool's role on.  On success it stores the result
 * value in *out (an object or array; caller takes it) and returns 0.  On
 * failure it returns an ERR_* with the message in ctx->err: public codes
 * (err_is_public) become an isError result with that text; others are
 * logged and the model sees "internal error" (isError) -- a tool failure
 * is never a protocol error.  The exception is ERR_UNAVAILABLE: the
 * database is down, which is the server's state, not the tool's answer,
 * and becomes HTTP 503.
 */
typedef int (*tool_fn)(struct tool_ctx *ctx, struct json_object *args, struct json_object **out);

struct tool {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*input_schema;	/* JSON Schema text, "type":"object" at the root */
	unsigned	 scope;		/* AUTH_SCOPE_* the token needs */
	unsigned	 hints;		/* TOOL_* annotations */
	const char	*toolset;	/* repos, issues, pull_requests, search, ... */
	enum tool_target target;	/* what the gate resolves (TOOL_TARGET_NONE: nothing) */
	/*
	 * TOOL_TARGET_REPO: the least role the call needs beyond read access
	 * (FORGE_ROLE_NONE: seeing the repository is enough), and the verb
	 * phrase its refusal names ("merge pull request"), followed by
	 * " #<number>" when the arguments hold a number.
	 */
	enum forge_role	 role;
	const char	*action;
	tool_fn		 handler;
};

/* The tools, one per file under src/tools/. */
extern const struct tool tool_add_issue_comment;
extern const struct tool tool_approve_pull_request_checks;
extern const struct tool tool_close_issue;
extern const struct tool tool_cancel_run;
extern const struct tool tool_close_pull_request;
extern const struct tool tool_compare_refs;
extern const struct tool tool_create_issue;
extern const struct tool tool_create_pull_request;
extern const struct tool tool_create_pull_request_discussion;
extern const struct tool tool_create_run;
extern const struct tool tool_delete_repository_variable;
extern const struct tool tool_edit_issue;
extern const struct tool tool_edit_pull_request;
extern const struct tool tool_get_file_contents;
extern const struct tool tool_get_issue;
extern const struct tool tool_get_pull_request;
extern const struct tool tool_get_pull_request_checks;
extern const struct tool tool_get_pull_request_diff;
extern const struct tool tool_get_run;
extern const struct tool tool_get_run_logs;
extern const struct tool tool_get_tree;
extern const struct tool tool_get_user;
extern const struct tool tool_list_branches;
extern const struct tool tool_list_commits;
extern const struct tool tool_list_inbox;
extern const struct tool tool_list_issues;
extern const struct tool tool_list_pull_request_discussions;
extern const struct tool tool_list_pull_requests;
extern const struct tool tool_list_repositories;
extern const struct tool tool_list_repository_variables;
extern const struct tool tool_list_runs;
extern const struct tool tool_rerun_run;
extern const struct tool tool_mark_notification_read;
extern const struct tool tool_merge_pull_request;
extern const struct tool tool_reopen_issue;
extern const struct tool tool_reopen_pull_request;
extern const struct tool tool_reopen_pull_request_discussion;
extern const struct tool tool_reply_pull_request_discussion;
extern const struct tool tool_resolve_pull_request_discussion;
extern const struct tool tool_search_code;
extern const struct tool tool_set_repository_variable;
extern const struct tool tool_web_search;

/* The sorted table in src/tools/registry.c. */
extern const struct tool *const tool_table[];
extern const size_t tool_table_len;

/*
 * Parses every schema once; refuses an unsorted table, a duplicate name or
 * a bad schema (ERR_CONFIG, message names the tool).  Idempotent.
 */
int	tool_registry_init(struct err *e);
void	tool_registry_release(void);
/* Index lookup by name (binary search); -1 when unknown. */
int	tool_find(const char *name);
/* The i-th tool's compiled schema. */
const struct schema *tool_schema(size_t i);
struct toolset_sel;
/* Whether tool i is among the tools of a client's choice (NULL: every tool). */
int	tool_chosen(size_t i, const struct toolset_sel *sel);

/* What the gate's first two checks decided about a call (tool_admit). */
enum tool_admit {
	TOOL_ADMITTED,	/* TOOL_ADMITTED: a tool of the client's choice, within the scopes */
	TOOL_UNKNOWN,	/* TOOL_UNKNOWN: no tool of the client's choice has the name: -32602 */
	TOOL_FORBIDDEN,	/* TOOL_FORBIDDEN: the token's scopes do not cover it: HTTP 403 */
	TOOL__MAX
};
/*
 * The gate's lookup and scope checks for a call of name by a token with
 * scopes, without running anything: *out is the tool's index unless
 * TOOL_UNKNOWN.  A batch asks this of every call before it runs one.
 */
enum tool_admit tool_admit(size_t *out, const char *name, const struct toolset_sel *sel,
	    unsigned scopes);
/*
 * The tools/list "tools" array of a client's choice (NULL or the default:
 * every tool), a new reference, in table order; NULL when out of memory.
 * Only the default array takes part in tool_list_mark and tool_list_gz.
 */
struct json_object *tool_list_json(const struct toolset_sel *sel);
/* The tools/list array as every answer holds it, deflated once (see gz.h). */
struct gz_piece;
const struct gz_piece *tool_list_gz(void);
/*
 * While on, the tools/list array serialises as one NUL byte (which JSON
 * text never holds otherwise): the answer is then spliced with the
 * deflated array (gz_splice), or the array put back (gz_expand).  Returns
 * how many NUL bytes were written since the last call.
 */
int	tool_list_mark(int on);

/*
 * The tool gate for a known tool index: validates arguments against the
 * schema, resolves the tool's target (a repository the caller cannot see,
 * or a name that is not "owner/name", is "Repository not found or not
 * accessible"; a role below the tool's is refused as the service refuses
 * it) and runs the handler with db, repos, cfg and the request's budget
 * (NULL: no deadline).  Returns the
 * CallToolResult object ({content, isError?, structuredContent?}); NULL on
 * allocation failure, or with *unavailable set to 1 when the gate or the
 * handler failed with ERR_UNAVAILABLE (the database cannot be reached):
 * that is no tool result but an HTTP 503 the caller answers.  Scope is
 * checked by the caller (it is an HTTP 403).
 */
struct json_object *tool_call(struct db *db, struct repo_cache *repos, const struct config *cfg,
	    struct budget *budget, size_t idx, const struct principal *who, struct json_object *args, int structured_any,
	    int *unavailable);

/* Builds an isError result carrying msg. */
struct json_object *tool_error_result(const char *msg);

#endif
