/* get_file_contents: one file at a ref of a visible repository (spec: get_file_contents). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/toolkit.h"

#define ANSWER_CAP	(256 * 1024)	/* bytes of content per answer, stated in the description */
#define LINES_DEFAULT	2000

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"path\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"File path from the repository root, e.g. "
    "src/main.c.\"},"
    "\"ref\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Branch, tag or commit id (may be abbreviated); "
    "default: the default branch.\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000000,\"default\":1,"
    "\"description\":\"First line, 1-based (default 1); pass next_offset "
    "from a truncated answer to read on.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"default\":2000,"
    "\"description\":\"Lines to return at most (default 2000).\"}"
    "}}";

static int
add(struct json_object *o, const char *key, struct json_object *v)
{
	if (v == NULL)
		return ERR_NOMEM;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return ERR_NOMEM;
	}
	return 0;
}

/* The longest prefix of a cut text that does not end inside a UTF-8 sequence, if valid. */
static int
utf8_prefix(const char *data, size_t len, size_t *out)
{
	size_t	 k;

	for (k = 0; k < 4 && k <= len; k++)
		if (json_utf8_valid(data, len - k)) {
			*out = len - k;
			return 1;
		}
	return 0;
}

/* Adds the line window's fields (text files only). */
static int
add_window(struct json_object *o, const struct repo_lines *f, size_t shown_len)
{
	char	 note[300];
	int	 more = f->end_line < f->total_lines;
	int	 truncated = more || f->cut_line || shown_len < f->len;

	if (add(o, "total_lines", json_object_new_int64((int64_t)f->total_lines)) != 0 ||
	    add(o, "start_line", json_object_new_int64((int64_t)f->start_line)) != 0 ||
	    add(o, "end_line", json_object_new_int64((int64_t)f->end_line)) != 0 ||
	    add(o, "truncated", json_object_new_boolean(truncated)) != 0)
		return ERR_NOMEM;
	if (more && add(o, "next_offset", json_object_new_int64((int64_t)f->end_line + 1)) != 0)
		return ERR_NOMEM;
	if (!truncated)
		return 0;
	if (f->cut_line)
		snprintf(note, sizeof note, "line %zu is longer than 256 KiB and was cut; lines "
		    "%zu to %zu of %zu are shown%s", f->start_line, f->start_line, f->end_line,
		    f->total_lines, more ? ": pass next_offset as offset to read on" : "");
	else
		snprintf(note, sizeof note, "lines %zu to %zu of %zu are shown: pass next_offset "
		    "as offset to read on", f->start_line, f->end_line, f->total_lines);
	return add(o, "note", json_object_new_string(note));
}

static int
build(struct json_object **out, const char *full, const char *path, const char *ref,
    const struct repo_lines *f)
{
	struct json_object	*o = NULL;
	unsigned char		*b64 = NULL;
	size_t			 len = f->len;
	int			 text = 0, rc = ERR_NOMEM;
	char			 note[200];

	*out = NULL;
	if (!f->binary)
		text = f->cut_line ? utf8_prefix(f->data, f->len, &len) :
		    json_utf8_valid(f->data, f->len);
	if (!text)
		len = f->len;
	if ((o = json_object_new_object()) == NULL)
		goto done;
	if (add(o, "repo", json_object_new_string(full)) != 0 ||
	    add(o, "path", json_object_new_string(path)) != 0 ||
	    add(o, "ref", json_object_new_string(ref)) != 0 ||
	    add(o, "commit", json_object_new_string(f->commit)) != 0 ||
	    add(o, "size", json_object_new_int64((int64_t)f->size)) != 0 ||
	    add(o, "encoding", json_object_new_string(text ? "utf-8" : "base64")) != 0)
		goto done;
	if (text) {
		if (add(o, "content", json_new_string_long(f->data, len)) != 0)
			goto done;
	} else {
		int	 n;

		if ((b64 = malloc(4 * ((len + 2) / 3) + 1)) == NULL)
			goto done;
		n = EVP_EncodeBlock(b64, (const unsigned char *)f->data, (int)len);
		if (n < 0 || add(o, "content", json_new_string_long((char *)b64, (size_t)n)) != 0)
			goto done;
	}
	if (!f->binary) {
		if (add_window(o, f, len) != 0)
			goto done;
	} else {
		if (add(o, "truncated", json_object_new_boolean(f->len < f->size)) != 0)
			goto done;
		snprintf(note, sizeof note, "binary file: the first %zu bytes of %zu are shown",
		    f->len, f->size);
		if (f->len < f->size && add(o, "note", json_object_new_string(note)) != 0)
			goto done;
	}
	*out = o;
	o = NULL;
	rc = 0;
done:
	free(b64);
	json_object_put(o);
	return rc;
}

static int
get_file_contents(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct repo_lines	 file;
	const char		*path = json_get_str(args, "path");
	const char		*ref = json_get_str(args, "ref");
	size_t			 start = (size_t)tk_int(args, "offset", 1);
	size_t			 lines = (size_t)tk_int(args, "limit", LINES_DEFAULT);
	char			 full[170];
	int			 rc;

	*out = NULL;
	memset(&file, 0, sizeof file);
	if (ref == NULL)
		ref = repo->default_branch;
	rc = repo_read_lines(ctx->repos, &file, repo->owner, repo->name, ref, path, start,
	    lines, ANSWER_CAP, ctx->err);
	if (rc == 0 && (file.binary || !json_utf8_valid(file.data, file.len))) {
		/* base64 grows by a third: read fewer bytes so the answer stays under the cap */
		repo_lines_release(&file);
		rc = repo_read_lines(ctx->repos, &file, repo->owner, repo->name, ref, path,
		    start, lines, ANSWER_CAP / 4 * 3, ctx->err);
	}
	if (rc != 0)
		goto done;
	if ((rc = build(out, tk_full(repo, full, sizeof full), path, ref, &file)) != 0)
		rc = err_set(ctx->err, rc, "out of memory");
done:
	repo_lines_release(&file);
	return rc;
}

const struct tool tool_get_file_contents = {
	.name = "get_file_contents",
	.title = "Get file contents",
	.description =
	    "Read one file of a repository at a ref (default: the default branch), a window "
	    "of lines at a time. Returns {repo, path, ref, commit, size, encoding, content, "
	    "total_lines, start_line, end_line, truncated}: size is the whole file's in "
	    "bytes; encoding is utf-8 for text, base64 for binary or non-UTF-8 content (a "
	    "binary file gives its first 192 KiB). An answer never holds more than 256 KiB. A "
	    "directory is an error: use get_tree.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = get_file_contents,
};
