/* search_code: matching lines in the tree at a ref (spec: search_code; plus regex, path glob, paging). */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "budget.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/toolkit.h"

#define SEARCH_DEFAULT	20
#define SEARCH_MAX	100	/* limit is clamped to 1..SEARCH_MAX (spec) */
#define SEARCH_MAX_BLOB	(1024 * 1024)	/* larger files are not searched (stated in the output) */

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"query\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"A fixed string, or a PCRE regular expression when "
    "regex is true; case-insensitive either way.\"},"
    "\"ref\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Branch, tag or commit id; default: the default "
    "branch.\"},"
    "\"limit\":{\"type\":\"integer\",\"default\":20,"
    "\"description\":\"Matching lines to return at most: 1 to 100 "
    "(default 20); other integers are clamped.\"},"
    "\"regex\":{\"type\":\"boolean\",\"default\":false,"
    "\"description\":\"Treat query as PCRE; ^ and $ match at line ends.\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"Only files matching this glob: * and ? within one "
    "directory level, ** any number of levels, [abc] a class; without / it matches "
    "the file name at any depth (*.c, src/**/*.h).\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000,\"default\":0,"
    "\"description\":\"Skip this many matches: pass next_offset from a "
    "truncated answer, with ref set to its commit.\"}"
    "}}";

static int
hit_json(struct json_object *arr, const struct repo_search_hit *h)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return ERR_NOMEM;
	if (tk_add(o, "path", json_new_string_repaired(h->path, strlen(h->path))) != 0 ||
	    tk_add(o, "line", json_object_new_int64((int64_t)h->line)) != 0 ||
	    tk_add(o, "snippet", json_object_new_string(h->snippet)) != 0 ||
	    json_object_array_add(arr, o) != 0) {
		json_object_put(o);
		return ERR_NOMEM;
	}
	return 0;
}

/* The note of a search cut short: why, and how to narrow it. */
static void
stopped_note(char *note, size_t len, const struct repo_search *s, size_t offset,
    const struct budget *b)
{
	int	 n;

	if (s->stopped == BUDGET_TIME)
		n = snprintf(note, len, "the search was stopped at the request's time limit "
		    "(request_timeout, %u s)", b != NULL ? b->seconds : 0);
	else
		n = snprintf(note, len, "the search used up its budget for one request (regex "
		    "steps, and every match found, the ones offset skips too)");
	if (n < 0 || (size_t)n >= len)
		return;
	snprintf(note + n, len - (size_t)n, "; these are the matches found before that. "
	    "Narrow the search: a path glob (e.g. src/**/*.c), a more specific query, a simpler "
	    "regex%s", offset > 0 ? ", or a smaller offset" : "");
}

static int
build(struct json_object **out, const char *full, const char *ref,
    const struct repo_search *s, size_t offset, const struct budget *b)
{
	struct json_object	*o = NULL, *arr = NULL;
	size_t			 i;
	char			 note[600];

	if ((o = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < s->n_hits; i++)
		if (hit_json(arr, &s->hits[i]) != 0)
			goto nomem;
	if (tk_add(o, "repo", json_object_new_string(full)) != 0 ||
	    tk_add(o, "ref", json_object_new_string(ref)) != 0 ||
	    tk_add(o, "commit", json_object_new_string(s->commit)) != 0 ||
	    tk_add(o, "results", arr) != 0)
		goto nomem;
	arr = NULL;
	if (tk_add(o, "truncated", json_object_new_boolean(s->truncated)) != 0)
		goto nomem;
	if (s->stopped != BUDGET_OK) {
		stopped_note(note, sizeof note, s, offset, b);
		if (tk_add(o, "stopped", json_object_new_string(s->stopped == BUDGET_TIME ?
		    "time" : "budget")) != 0 || tk_add(o, "note",
		    json_object_new_string(note)) != 0)
			goto nomem;
		if (s->n_hits > 0 && tk_add(o, "next_offset", json_object_new_int64((int64_t)
		    (offset + s->n_hits))) != 0)
			goto nomem;
	} else if (s->truncated) {
		snprintf(note, sizeof note, "more lines match: call again with offset %zu and "
		    "ref %s for the next page", offset + s->n_hits, s->commit);
		if (tk_add(o, "next_offset", json_object_new_int64((int64_t)(offset +
		    s->n_hits))) != 0 || tk_add(o, "note", json_object_new_string(note)) != 0)
			goto nomem;
	}
	if (s->skipped > 0 && tk_add(o, "skipped_large_files",
	    json_object_new_int64((int64_t)s->skipped)) != 0)
		goto nomem;
	*out = o;
	return 0;
nomem:
	json_object_put(arr);
	json_object_put(o);
	return ERR_NOMEM;
}

static int
search_code(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct repo_search	 res;
	struct repo_search_opts	 opts;
	struct err		 local;
	const char		*ref = json_get_str(args, "ref");
	char			 full[170];
	int			 rc;

	*out = NULL;
	memset(&res, 0, sizeof res);
	memset(&opts, 0, sizeof opts);
	if (ref == NULL)
		ref = repo->default_branch;
	opts.query = json_get_str(args, "query");
	opts.regex = tk_bool(args, "regex", 0);
	opts.glob = json_get_str(args, "path");
	opts.limit = (size_t)tk_clamp(args, "limit", SEARCH_DEFAULT, 1, SEARCH_MAX);
	opts.offset = (size_t)tk_int(args, "offset", 0);
	opts.max_blob = SEARCH_MAX_BLOB;
	opts.budget = ctx->budget;
	err_clear(&local);
	if ((rc = repo_search(ctx->repos, &res, repo->owner, repo->name, ref, &opts,
	    &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((rc = build(out, tk_full(repo, full, sizeof full), ref, &res, opts.offset,
	    ctx->budget)) != 0)
		rc = err_set(ctx->err, rc, "out of memory");
done:
	repo_search_release(&res);
	return rc;
}

const struct tool tool_search_code = {
	.name = "search_code",
	.title = "Search code",
	.description =
	    "Search the files of a repository at a ref (default: the default branch) for "
	    "lines matching query. Binary files and files over 1 MiB are skipped. Returns "
	    "{repo, ref, commit, results: [{path, line (1-based), snippet (the line, a long "
	    "one cut to about 200 characters around the match)}], truncated}. A search that "
	    "runs out of time or of its budget (regex steps and matches found, skipped ones "
	    "too) returns what it found with truncated, stopped (\"time\" or \"budget\") "
	    "and a note on how to narrow it.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = search_code,
};
