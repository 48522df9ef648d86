/* gitread: what the git read tools share: repository lookup, argument getters, JSON helpers. */
#ifndef FM_GITREAD_H
#define FM_GITREAD_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct db_repo;
struct err;
struct tool_ctx;

#define GITREAD_NOT_FOUND	"Repository not found or not accessible"

/*
 * The repository named by args "repo" ("owner/name") if the caller may see
 * it; out is released by the caller with db_repo_release (also on error).
 * ERR_NOTFOUND with exactly GITREAD_NOT_FOUND for a bad, missing or
 * invisible name, so an invisible repository looks like a missing one.
 */
int	gitread_repo(struct tool_ctx *ctx, struct json_object *args, struct db_repo *out);
/* An integer argument (an integral number too), or def when absent. */
int64_t	gitread_int(struct json_object *args, const char *key, int64_t def);
/* A boolean argument, or def when absent. */
int	gitread_bool(struct json_object *args, const char *key, int def);
/* A string argument, NULL when absent or empty; ERR_INVALID when it holds NUL. */
int	gitread_str(struct tool_ctx *ctx, struct json_object *args, const char *key,
	    const char **out);
/* Adds v (taken, may be NULL for an allocation failure) to o; ERR_NOMEM. */
int	gitread_add(struct json_object *o, const char *key, struct json_object *v);
/* A JSON string of p[0, n) with invalid UTF-8 replaced by U+FFFD (NULL on ENOMEM). */
struct json_object *gitread_text(const char *p, size_t n);
/* "owner/name" of a found repository into buf. */
const char *gitread_full(const struct db_repo *r, char *buf, size_t len);
/* Passes a store error up: the store's public message, or out of memory. */
int	gitread_fail(struct tool_ctx *ctx, int rc, const struct err *local);

#endif
