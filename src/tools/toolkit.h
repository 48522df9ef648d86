/* toolkit: what tools share: argument getters, JSON helpers. */
#ifndef FM_TK_H
#define FM_TK_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct db_repo;
struct err;
struct repo_diff;
struct tool_ctx;

/* An integer argument (saturated to int64), or def when absent. */
int64_t	tk_int(struct json_object *args, const char *key, int64_t def);
/*
 * An integer argument brought into lo..hi, or def when absent: for the
 * arguments the specification says are clamped, never refused for their
 * value (siGit: list_repositories and search_code limit).  Their schema
 * has no minimum or maximum; it still refuses what is not an integer.
 */
int64_t	tk_clamp(struct json_object *args, const char *key, int64_t def, int64_t lo,
	    int64_t hi);
/* A boolean argument, or def when absent. */
int	tk_bool(struct json_object *args, const char *key, int def);
/* Adds v (taken, may be NULL for an allocation failure) to o; ERR_NOMEM. */
int	tk_add(struct json_object *o, const char *key, struct json_object *v);
/*
 * A paged list's fields: v (taken, may be NULL) under key, then page and
 * has_more, in that order; ERR_NOMEM.
 */
int	tk_page(struct json_object *o, const char *key, struct json_object *v, int64_t page,
	    int has_more);
/* "owner/name" of a found repository into buf. */
const char *tk_full(const struct db_repo *r, char *buf, size_t len);
/*
 * Adds what compare_refs and get_pull_request_diff show of diff d to o:
 * merge_base (three_dot), files_changed, additions, deletions, files
 * (at most 1000, then files_truncated), path, patch, offset, patch_total,
 * truncated, and next_offset with a note when truncated.  ERR_NOMEM.  In
 * compare_refs.c.
 */
int	tk_diff_json(struct json_object *o, const struct repo_diff *d, int three_dot,
	    const char *path, size_t offset);
/* Passes a store error up: the store's public message, or out of memory. */
int	tk_fail(struct tool_ctx *ctx, int rc, const struct err *local);

#endif
