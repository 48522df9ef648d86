/* repo_anchor: where a review discussion may anchor on a diff, and the lines around the anchor. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>
#include "buf.h"
#include "err.h"
#include "json.h"
#include "store/repo.h"
#include "store/repo-internal.h"

/* ---- anchors of review discussions (repo_diff_anchor) ---- */

#define ANCHOR_LINE_MAX		400	/* bytes of one line kept in an anchor context */
#define ANCHOR_RANGES_SHOWN	8	/* valid line ranges named in a refusal */

/*
 * Appends one diff line as origin + text without its line end, at most
 * ANCHOR_LINE_MAX bytes of it, as valid UTF-8 (a NUL or a byte that is
 * not UTF-8 becomes U+FFFD), then '\n'.
 */
static int
anchor_put_line(struct buf *b, char origin, const char *text, size_t len)
{
	const unsigned char	*p = (const unsigned char *)text;
	size_t			 i = 0, k;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	buf_putc(b, origin);
	while (i < len && i < ANCHOR_LINE_MAX) {
		if (p[i] == '\0' || (k = json_utf8_len(text + i, len - i)) == 0) {
			buf_puts(b, "\xef\xbf\xbd");
			i++;
			continue;
		}
		if (i + k > ANCHOR_LINE_MAX)
			break;
		buf_append(b, p + i, k);
		i += k;
	}
	return buf_putc(b, '\n');
}

/* Whether a hunk line is one of the diff's lines (not a "no newline" marker). */
static int
anchor_real(const git_diff_line *l)
{
	return l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_ADDITION ||
	    l->origin == GIT_DIFF_LINE_DELETION;
}

/* Whether line l is on side new_side (context lines are on both). */
static int
anchor_on_side(const git_diff_line *l, int new_side)
{
	if (l->origin == GIT_DIFF_LINE_CONTEXT)
		return 1;
	return l->origin == (new_side ? GIT_DIFF_LINE_ADDITION : GIT_DIFF_LINE_DELETION);
}

/*
 * The context of the anchor (hunk h, its line k): up to around diff lines
 * either side within the hunk, as a hunk of its own ("@@ -a,b +c,d @@"
 * then the lines) into *out.
 */
static int
anchor_context(git_patch *p, size_t h, size_t k, size_t nlines, size_t around, char **out)
{
	const git_diff_hunk	*hunk;
	const git_diff_line	*l;
	struct buf		 lines, b;
	size_t			 i, from, to;
	long			 old_start = 0, new_start = 0, old_n = 0, new_n = 0;
	size_t			 before = 0, after = 0, tmp;
	int			 rc = 0;

	buf_init(&lines);
	buf_init(&b);
	if (git_patch_get_hunk(&hunk, &tmp, p, h) < 0)
		return ERR_GIT;
	/* walk back and forth over real lines only */
	from = k;
	for (i = k; i > 0 && before < around; i--)
		if (git_patch_get_line_in_hunk(&l, p, h, i - 1) == 0 && anchor_real(l)) {
			before++;
			from = i - 1;
		}
	to = k;
	for (i = k + 1; i < nlines && after < around; i++)
		if (git_patch_get_line_in_hunk(&l, p, h, i) == 0 && anchor_real(l)) {
			after++;
			to = i;
		}
	/* the lines of each side before the excerpt (a hunk's empty range starts at the line before) */
	old_start = hunk->old_lines > 0 ? hunk->old_start - 1 : hunk->old_start;
	new_start = hunk->new_lines > 0 ? hunk->new_start - 1 : hunk->new_start;
	for (i = 0; i < from; i++) {
		if (git_patch_get_line_in_hunk(&l, p, h, i) < 0)
			return ERR_GIT;
		if (l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_DELETION)
			old_start++;
		if (l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_ADDITION)
			new_start++;
	}
	for (i = from; i <= to; i++) {
		if (git_patch_get_line_in_hunk(&l, p, h, i) < 0) {
			rc = ERR_GIT;
			goto done;
		}
		if (!anchor_real(l))
			continue;
		if (l->origin != GIT_DIFF_LINE_ADDITION)
			old_n++;
		if (l->origin != GIT_DIFF_LINE_DELETION)
			new_n++;
		anchor_put_line(&lines, l->origin == GIT_DIFF_LINE_CONTEXT ? ' ' : l->origin,
		    l->content, l->content_len);
	}
	/* like git, an empty range starts at the line before it */
	buf_printf(&b, "@@ -%ld,%ld +%ld,%ld @@\n", old_n == 0 ? old_start : old_start + 1, old_n,
	    new_n == 0 ? new_start : new_start + 1, new_n);
	if (lines.len > 0)
		buf_append(&b, lines.data, lines.len);
	if (b.oom || lines.oom) {
		rc = ERR_NOMEM;
		goto done;
	}
	*out = buf_steal(&b, NULL);
	if (*out == NULL)
		rc = ERR_NOMEM;
done:
	buf_release(&lines);
	buf_release(&b);
	return rc;
}

/* Appends "a-b" (or "a") for one hunk's range of side lines to the list of valid lines. */
static void
anchor_range(struct buf *b, size_t *shown, long start, long count)
{
	if (count <= 0)
		return;
	if (*shown == ANCHOR_RANGES_SHOWN)
		buf_puts(b, ", ...");
	if (*shown >= ANCHOR_RANGES_SHOWN) {
		(*shown)++;
		return;
	}
	if (*shown > 0)
		buf_puts(b, ", ");
	if (count == 1)
		buf_printf(b, "%ld", start);
	else
		buf_printf(b, "%ld-%ld", start, start + count - 1);
	(*shown)++;
}

int
repo_diff_anchor(struct repo_cache *c, char **out, const char *owner, const char *name,
    const char *old_commit, const char *new_commit, const char *path, int new_side,
    size_t line, size_t around, const char *what, struct err *e)
{
	git_repository		*r;
	git_commit		*oc = NULL, *nc = NULL;
	git_tree		*old = NULL, *new_ = NULL;
	git_diff		*diff = NULL;
	git_patch		*patch = NULL;
	const git_diff_delta	*d = NULL;
	const git_diff_hunk	*hunk;
	const git_diff_line	*l;
	const char		*side = new_side ? "new" : "old";
	struct buf		 valid;
	size_t			 i, h, n, nh, nlines, shown = 0;
	int			 rc;

	*out = NULL;
	buf_init(&valid);
	if ((rc = repo_path_check(path, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(r, &nc, new_commit, e)) != 0)
		goto done;
	if (old_commit != NULL && old_commit[0] != '\0' &&
	    (rc = repo_ref_commit(r, &oc, old_commit, e)) != 0)
		goto done;
	if (git_commit_tree(&new_, nc) < 0 || (oc != NULL && git_commit_tree(&old, oc) < 0)) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the revision's trees");
		goto done;
	}
	if ((rc = repo_tree_diff(&diff, r, old, new_, NULL, e)) != 0)
		goto done;
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		d = git_diff_get_delta(diff, i);
		if (repo_delta_is(d, path))
			break;
	}
	if (i == n) {
		rc = err_set(e, ERR_INVALID, "'%s' is not changed in %s: anchor to a file its diff "
		    "changes (get_pull_request_diff lists them), or leave out path for a general "
		    "discussion", path, what);
		goto done;
	}
	if (git_patch_from_diff(&patch, diff, i) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "patch", "cannot compute the diff");
		goto done;
	}
	nh = git_patch_num_hunks(patch);
	if ((d->flags & GIT_DIFF_FLAG_BINARY) != 0 || nh == 0) {
		rc = err_set(e, ERR_INVALID, "'%s' has no lines in the diff of %s (a binary file or "
		    "a change of mode only): leave out path for a general discussion", path, what);
		goto done;
	}
	for (h = 0; h < nh; h++) {
		if (git_patch_get_hunk(&hunk, &nlines, patch, h) < 0) {
			rc = repo_git_fail(e, ERR_GIT, "hunk", "cannot compute the diff");
			goto done;
		}
		if (new_side)
			anchor_range(&valid, &shown, hunk->new_start, hunk->new_lines);
		else
			anchor_range(&valid, &shown, hunk->old_start, hunk->old_lines);
		for (i = 0; i < nlines; i++) {
			if (git_patch_get_line_in_hunk(&l, patch, h, i) < 0) {
				rc = repo_git_fail(e, ERR_GIT, "line", "cannot compute the diff");
				goto done;
			}
			if (!anchor_real(l) || !anchor_on_side(l, new_side))
				continue;
			if ((size_t)(new_side ? l->new_lineno : l->old_lineno) != line)
				continue;
			rc = anchor_context(patch, h, i, nlines, around, out);
			if (rc == ERR_NOMEM)
				rc = err_set(e, rc, "out of memory");
			else if (rc != 0)
				rc = repo_git_fail(e, rc, "context", "cannot compute the diff");
			goto done;
		}
	}
	if (valid.oom) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (shown == 0)
		rc = err_set(e, ERR_INVALID, "the %s side of '%s' has no lines in the diff of %s "
		    "(the file is %s there): use side \"%s\"", side, path, what,
		    new_side ? "deleted" : "added", new_side ? "old" : "new");
	else
		rc = err_set(e, ERR_INVALID, "line %zu of the %s side of '%s' is not shown in the "
		    "diff of %s: the %s-side lines you can anchor to are %s", line, side, path,
		    what, side, valid.data);
done:
	buf_release(&valid);
	git_patch_free(patch);
	git_diff_free(diff);
	git_tree_free(new_);
	git_tree_free(old);
	git_commit_free(nc);
	git_commit_free(oc);
	return rc;
}
