/* tool: registry set-up and the tool gate: schema validation, target, handler, result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/printbuf.h>

#include "budget.h"
#include "conf.h"
#include "err.h"
#include "gz.h"
#include "json.h"
#include "log.h"
#include "schema.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "toolset.h"

static struct schema	*tool_schemas[64];
static struct json_object *tool_list;	/* the tools/list array, built once */
static struct gz_piece	 tool_list_gzip;	/* its serialisation, deflated */
static int		 tool_ready;
static unsigned char	 tool_sets[64];	/* enum toolset of each tool */

/* A value's serialisation, made once (tool_freeze): appended as is. */
struct tool_text {
	size_t	 len;
	char	 text[];
};

static int
tool_text_serialize(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	const struct tool_text	*t = json_object_get_userdata(o);

	(void)level;
	(void)flags;
	return printbuf_memappend(pb, t->text, (int)t->len);
}

static void
tool_text_free(struct json_object *o, void *userdata)
{
	(void)o;
	free(userdata);
}

/*
 * Makes later serialisations of o copy text, o's own serialisation (made
 * with json_dump's flags), instead of walking o again.  o must not change
 * afterwards.  Returns 0 or ERR_NOMEM (o is then serialised as usual).
 */
static int
tool_freeze_as(struct json_object *o, const char *text, size_t len,
    json_object_to_json_string_fn *serialize)
{
	struct tool_text	*t;

	if ((t = malloc(sizeof(*t) + len + 1)) == NULL)
		return ERR_NOMEM;
	t->len = len;
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	json_object_set_serializer(o, serialize, t, tool_text_free);
	return 0;
}

static int
tool_freeze(struct json_object *o, const char *text, size_t len)
{
	return tool_freeze_as(o, text, len, tool_text_serialize);
}

static int	tool_list_marking;	/* serialise tool_list as one NUL byte (tool_list_mark) */
static int	tool_list_marks;	/* NUL bytes written since marking began */

static int
tool_list_serialize(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	if (tool_list_marking) {
		tool_list_marks++;
		return printbuf_memappend(pb, "", 1);
	}
	return tool_text_serialize(o, pb, level, flags);
}

/*
 * Serialises tool_list once: every tools/list answer copies that text.  The
 * text is also deflated once, for clients that accept gzip (core_http).
 */
static int
tool_list_freeze(struct err *e)
{
	const char	*text;
	size_t		 len;

	if ((text = json_dump(tool_list, &len)) == NULL || gz_piece_init(&tool_list_gzip, text, len) != 0 ||
	    tool_freeze_as(tool_list, text, len, tool_list_serialize) != 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

int
tool_list_mark(int on)
{
	int	 marks = tool_list_marks;

	tool_list_marking = on;
	tool_list_marks = 0;
	return marks;
}

static struct json_object *
tool_describe(const struct tool *t, const struct schema *s)
{
	struct json_object	*o = json_object_new_object(), *a = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "title", json_object_new_string(t->title));
	json_object_object_add(o, "description", json_object_new_string(t->description));
	json_object_object_add(o, "inputSchema", json_object_get(schema_json(s)));
	json_object_object_add(a, "title", json_object_new_string(t->title));
	json_object_object_add(a, "readOnlyHint", json_object_new_boolean(!!(t->hints & TOOL_READ_ONLY)));
	if (!(t->hints & TOOL_READ_ONLY)) {
		json_object_object_add(a, "destructiveHint",
		    json_object_new_boolean(!!(t->hints & TOOL_DESTRUCTIVE)));
		json_object_object_add(a, "idempotentHint",
		    json_object_new_boolean(!!(t->hints & TOOL_IDEMPOTENT)));
	}
	json_object_object_add(a, "openWorldHint", json_object_new_boolean(!!(t->hints & TOOL_OPEN_WORLD)));
	json_object_object_add(o, "annotations", a);
	return o;
}

int
tool_registry_init(struct err *e)
{
	struct json_object	*t;
	const char		*text;
	size_t			 i, len;
	int			 rc, ts;

	if (tool_ready)
		return 0;
	if (tool_table_len > sizeof(tool_schemas) / sizeof(tool_schemas[0]))
		return err_set(e, ERR_CONFIG, "too many tools for the registry");
	for (i = 0; i < tool_table_len; i++) {
		if (i > 0 && strcmp(tool_table[i - 1]->name, tool_table[i]->name) >= 0) {
			rc = err_set(e, ERR_CONFIG, "tool table: '%s' is duplicated or out of order",
			    tool_table[i]->name);
			goto fail;
		}
		if (tool_table[i]->role != FORGE_ROLE_NONE &&
		    (tool_table[i]->target != TOOL_TARGET_REPO || tool_table[i]->action == NULL)) {
			rc = err_set(e, ERR_CONFIG, "tool '%s' needs a role but names no repository "
			    "target or action", tool_table[i]->name);
			goto fail;
		}
		if (tool_table[i]->toolset == NULL || (ts = toolset_find(tool_table[i]->toolset,
		    strlen(tool_table[i]->toolset))) < 0) {
			rc = err_set(e, ERR_CONFIG, "tool '%s' names no known toolset",
			    tool_table[i]->name);
			goto fail;
		}
		tool_sets[i] = (unsigned char)ts;
		if ((rc = schema_compile(&tool_schemas[i], tool_table[i]->input_schema, e)) != 0) {
			snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			    " (tool '%s')", tool_table[i]->name);
			goto fail;
		}
	}
	if ((tool_list = json_object_new_array()) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < tool_table_len; i++) {
		/* each tool serialised once too, for the lists of a client's choice */
		if ((t = tool_describe(tool_table[i], tool_schemas[i])) == NULL ||
		    (text = json_dump(t, &len)) == NULL || tool_freeze(t, text, len) != 0 ||
		    json_object_array_add(tool_list, t) != 0) {
			json_object_put(t);
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
	}
	if ((rc = tool_list_freeze(e)) != 0)
		goto fail;
	tool_ready = 1;
	return 0;
fail:
	tool_registry_release();
	return rc;
}

void
tool_registry_release(void)
{
	size_t	i;

	for (i = 0; i < sizeof(tool_schemas) / sizeof(tool_schemas[0]); i++) {
		schema_free(tool_schemas[i]);
		tool_schemas[i] = NULL;
	}
	json_object_put(tool_list);
	tool_list = NULL;
	gz_piece_free(&tool_list_gzip);
	tool_ready = 0;
}

int
tool_find(const char *name)
{
	size_t	lo = 0, hi = tool_table_len, mid;
	int	c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(name, tool_table[mid]->name);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

const struct schema *
tool_schema(size_t i)
{
	return i < tool_table_len ? tool_schemas[i] : NULL;
}

int
tool_chosen(size_t i, const struct toolset_sel *sel)
{
	if (i >= tool_table_len)
		return 0;
	if (sel == NULL)
		return 1;
	return (sel->sets & (1u << tool_sets[i])) != 0 &&
	    (!sel->read_only || (tool_table[i]->hints & TOOL_READ_ONLY));
}

enum tool_admit
tool_admit(size_t *out, const char *name, const struct toolset_sel *sel, unsigned scopes)
{
	int	idx;

	/* A tool outside the client's choice is as unknown as one that does not exist. */
	if ((idx = tool_find(name)) < 0 || !tool_chosen((size_t)idx, sel))
		return TOOL_UNKNOWN;
	*out = (size_t)idx;
	return auth_has_scope(scopes, tool_table[idx]->scope) ? TOOL_ADMITTED : TOOL_FORBIDDEN;
}

struct json_object *
tool_list_json(const struct toolset_sel *sel)
{
	struct json_object	*a;
	size_t			 i;

	if (sel == NULL || toolset_sel_is_default(sel))
		return json_object_get(tool_list);
	if ((a = json_object_new_array()) == NULL)
		return NULL;
	for (i = 0; i < tool_table_len; i++)
		if (tool_chosen(i, sel) &&
		    json_object_array_add(a, json_object_get(json_object_array_get_idx(tool_list,
		    i))) != 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

const struct gz_piece *
tool_list_gz(void)
{
	return &tool_list_gzip;
}

/*
 * Repositories a caller was shown, remembered by this process for
 * token_cache_seconds (the token cache's lifetime, so a read tool costs no
 * database round trip): a repository made private or a collaborator
 * removed is refused at most that long after the change, as a revoked
 * token is.  Tools that change something look the repository up afresh.
 * Direct-mapped; a clash just replaces the slot.
 */
#define TOOL_SEEN_SLOTS	64

static struct tool_seen {
	uint64_t	 user_id;
	char		 owner[65], name[101];
	struct db_repo	 repo;
	int64_t		 at_ms;		/* 0: free */
} tool_seen[TOOL_SEEN_SLOTS];

static struct tool_seen *
tool_seen_slot(uint64_t user_id, const char *owner, const char *name)
{
	const char	*p;
	uint32_t	 h = (uint32_t)user_id * 2654435761u;

	for (p = owner; *p != '\0'; p++)
		h = h * 31 + (unsigned char)*p;
	for (p = name; *p != '\0'; p++)
		h = h * 31 + (unsigned char)*p;
	return &tool_seen[h % TOOL_SEEN_SLOTS];
}

/*
 * owner/name into *out if the caller may see it (released by the caller,
 * also on error); with cached, a lookup this process made less than
 * token_cache_seconds ago is reused.  ERR_NOTFOUND when it is missing or
 * not visible.
 */
static int
tool_repo_find(struct db_repo *out, const struct tool_ctx *ctx, const char *owner,
    const char *name, int cached)
{
	struct tool_seen	*s = tool_seen_slot(ctx->who->user_id, owner, name);
	int64_t			 ttl = (int64_t)ctx->cfg->token_cache_seconds * 1000, now;
	int			 rc;

	now = budget_now_ms() + 1;	/* never 0, which marks a free slot */
	if (cached && ttl > 0 && s->at_ms != 0 && now - s->at_ms < ttl &&
	    s->user_id == ctx->who->user_id && strcmp(s->owner, owner) == 0 &&
	    strcmp(s->name, name) == 0) {
		*out = s->repo;
		out->description = NULL;
		if (s->repo.description != NULL &&
		    (out->description = strdup(s->repo.description)) == NULL)
			return err_set(ctx->err, ERR_NOMEM, "out of memory");
		return 0;
	}
	if ((rc = db_repo_find_visible(ctx->db, out, ctx->who->user_id, owner, name,
	    ctx->err)) != 0 || ttl == 0)
		return rc;
	db_repo_release(&s->repo);
	s->at_ms = 0;
	s->repo = *out;
	s->repo.description = NULL;
	if (out->description != NULL && (s->repo.description = strdup(out->description)) == NULL)
		return 0;	/* not remembered; the answer stands */
	s->user_id = ctx->who->user_id;
	snprintf(s->owner, sizeof(s->owner), "%s", owner);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->at_ms = now;
	return 0;
}

/*
 * The repository the "repo" argument names ("owner/name", the one place
 * that splits it) into *out, if the caller may see it and holds t's role
 * on it.  Anything else that is not owner/name is answered as a missing
 * repository, so an invisible one looks the same.
 */
static int
tool_target_repo(struct db_repo *out, const struct tool_ctx *ctx, const struct tool *t,
    struct json_object *args)
{
	struct json_object	*number;
	const char		*full = json_get_str(args, "repo"), *slash;
	char			 owner[65], name[101], action[160];
	int			 rc;

	if (full == NULL || (slash = strchr(full, '/')) == NULL || slash == full ||
	    (size_t)(slash - full) >= sizeof(owner) || slash[1] == '\0' ||
	    strlen(slash + 1) >= sizeof(name) || strchr(slash + 1, '/') != NULL)
		return err_set(ctx->err, ERR_NOTFOUND, "%s", DB_REPO_NOT_FOUND);
	memcpy(owner, full, (size_t)(slash - full));
	owner[slash - full] = '\0';
	snprintf(name, sizeof(name), "%s", slash + 1);
	if ((rc = tool_repo_find(out, ctx, owner, name, t->hints & TOOL_READ_ONLY)) != 0)
		return rc;
	if (t->role == FORGE_ROLE_NONE)
		return 0;
	number = json_get(args, "number");
	if (json_is_type(number, json_type_int))
		snprintf(action, sizeof(action), "%s #%lld", t->action,
		    (long long)json_object_get_int64(number));
	else
		snprintf(action, sizeof(action), "%s", t->action);
	return service_need_role(ctx->db, out, ctx->who->user_id, t->role, action, NULL,
	    ctx->err);
}

static struct json_object *
tool_text_result(const char *text, size_t len, int is_error)
{
	struct json_object	*r = json_object_new_object(), *content, *block;

	content = json_object_new_array();
	block = json_object_new_object();
	json_object_object_add(block, "type", json_object_new_string("text"));
	json_object_object_add(block, "text", json_new_string_long(text, len));
	json_object_array_add(content, block);
	json_object_object_add(r, "content", content);
	if (is_error)
		json_object_object_add(r, "isError", json_object_new_boolean(1));
	return r;
}

struct json_object *
tool_error_result(const char *msg)
{
	return tool_text_result(msg, strlen(msg), 1);
}

struct json_object *
tool_call(struct db *db, struct repo_cache *repos, const struct config *cfg,
    struct budget *budget, size_t idx, const struct principal *who, struct json_object *args,
    int structured_any, int *unavailable)
{
	const struct tool	*t = tool_table[idx];
	struct json_object	*empty = NULL, *out = NULL, *r;
	struct tool_ctx		 ctx;
	struct db_repo		 target;
	struct err		 e;
	const char		*text, *repo;
	char			 msg[600];
	size_t			 len;
	int			 rc = 0;

	err_clear(&e);
	memset(&target, 0, sizeof(target));
	*unavailable = 0;
	if (args == NULL)
		args = empty = json_object_new_object();
	if (schema_validate(tool_schemas[idx], args, msg, sizeof(msg)) != 0) {
		json_object_put(empty);
		return tool_error_result(msg);
	}
	/* a tool that writes runs on the write node's connection, when there is one */
	ctx.db = (t->hints & TOOL_READ_ONLY) ? db : db_writer(db);
	ctx.repos = repos;
	ctx.cfg = cfg;
	ctx.who = who;
	ctx.repo = NULL;
	ctx.budget = budget;
	ctx.err = &e;
	repo = json_get_str(args, "repo");	/* lives as long as the caller's args */
	if (t->target == TOOL_TARGET_REPO && (rc = tool_target_repo(&target, &ctx, t, args)) == 0)
		ctx.repo = &target;
	if (rc == 0)
		rc = t->handler(&ctx, args, &out);
	json_object_put(empty);
	db_repo_release(&target);
	if (rc != 0) {
		json_object_put(out);
		if (err_is_public(rc) && e.msg[0] != '\0')
			return tool_error_result(e.msg);
		log_error("tool %s failed: %s: %s", t->name, err_name(rc), e.msg);
		if (rc == ERR_UNAVAILABLE) {
			/* Not the tool's fault: the caller answers 503 with Retry-After. */
			*unavailable = 1;
			return NULL;
		}
		if (rc == ERR_GIT) {
			/* The git adapter's texts are fixed: what failed, never a path. */
			snprintf(msg, sizeof(msg), "repository '%.200s' could not be read (%.200s): "
			    "its storage on the server is unreadable or damaged; the server log has "
			    "the detail", repo != NULL ? repo : "?",
			    e.msg[0] != '\0' ? e.msg : "git error");
			return tool_error_result(msg);
		}
		if (rc == ERR_CONFLICT)
			return tool_error_result("the change collided with a concurrent one and was "
			    "not made; try again");
		return tool_error_result("internal error: the tool failed unexpectedly "
		    "(the server log has the detail)");
	}
	text = json_dump(out, &len);
	r = tool_text_result(text, len, 0);
	/* Legacy structuredContent must be an object; 2026-07-28 allows any value. */
	if (structured_any || json_is_type(out, json_type_object)) {
		/* the answer holds it twice: serialise it once */
		(void)tool_freeze(out, text, len);
		json_object_object_add(r, "structuredContent", out);
	} else
		json_object_put(out);
	return r;
}
