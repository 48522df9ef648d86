/* repo_diff: the diff between two refs (two-dot or three-dot) as git prints it, with libgit2. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "buf.h"
#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

#define DIFF_RENAME_LIMIT	1000	/* git's diff.renameLimit default */

/*
 * Rename similarity as git computes it, so "similarity index" lines and
 * the 50% rename threshold agree with `git diff`: each blob is cut into
 * spans (a line, or 64 bytes), each span hashed; the score is the bytes
 * of the source found again in the destination over the larger size.
 */
#define SIM_HASHBASE	107927u
#define SIM_MAX_SCORE	60000u
#define SIM_SPAN	64
#define SIM_BINARY_PEEK	8000	/* git looks for a NUL this far to call a blob binary */

struct span {
	uint32_t	 hash;
	uint32_t	 bytes;
};

struct sim_sig {
	size_t		 size;
	struct span	*v;	/* sorted by hash, one entry per hash */
	size_t		 n;
};

static void sim_free(void *, void *);

static int
span_cmp(const void *a, const void *b)
{
	uint32_t	 x = ((const struct span *)a)->hash, y = ((const struct span *)b)->hash;

	return x < y ? -1 : x > y;
}

static int
sim_buffer(void **out, const git_diff_file *file, const char *buf, size_t len, void *payload)
{
	struct sim_sig		*sig;
	const unsigned char	*p = (const unsigned char *)buf;
	uint32_t		 a1 = 0, a2 = 0, old;
	struct span		*nv;
	size_t			 i, k, n = 0, cap, peek = len < SIM_BINARY_PEEK ? len : SIM_BINARY_PEEK;
	int			 text = memchr(buf, '\0', peek) == NULL;

	(void)file;
	(void)payload;
	*out = NULL;
	if ((sig = calloc(1, sizeof *sig)) == NULL)
		return -1;
	sig->size = len;
	cap = len / 32 + 16;	/* spans are usually lines: grow when they are shorter */
	if ((sig->v = malloc(cap * sizeof *sig->v)) == NULL) {
		free(sig);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned	 c = p[i];

		if (text && c == '\r' && i + 1 < len && p[i + 1] == '\n')
			continue;
		old = a1;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old >> 25);
		a1 += c;
		if (++n < SIM_SPAN && c != '\n')
			continue;
		if (sig->n + 1 >= cap) {
			cap *= 2;
			if ((nv = realloc(sig->v, cap * sizeof *nv)) == NULL) {
				sim_free(sig, NULL);
				return -1;
			}
			sig->v = nv;
		}
		sig->v[sig->n].hash = (a1 + a2 * 0x61u) % SIM_HASHBASE;
		sig->v[sig->n++].bytes = (uint32_t)n;
		n = 0;
		a1 = a2 = 0;
	}
	if (n > 0) {
		sig->v[sig->n].hash = (a1 + a2 * 0x61u) % SIM_HASHBASE;
		sig->v[sig->n++].bytes = (uint32_t)n;
	}
	if (sig->n > 1)
		qsort(sig->v, sig->n, sizeof *sig->v, span_cmp);
	for (i = 0, k = 0; i < sig->n; i++) {	/* one entry per hash, bytes summed */
		if (k > 0 && sig->v[k - 1].hash == sig->v[i].hash)
			sig->v[k - 1].bytes += sig->v[i].bytes;
		else
			sig->v[k++] = sig->v[i];
	}
	sig->n = k;
	*out = sig;
	return 0;
}

static int
sim_file(void **out, const git_diff_file *file, const char *path, void *payload)
{
	(void)file;
	(void)path;
	(void)payload;
	*out = NULL;
	return -1;	/* trees only: there are no work-tree files here */
}

static void
sim_free(void *p, void *payload)
{
	struct sim_sig	*sig = p;

	(void)payload;
	if (sig != NULL)
		free(sig->v);
	free(sig);
}

static int
sim_score(int *score, void *pa, void *pb, void *payload)
{
	const struct sim_sig	*a = pa, *b = pb;
	size_t			 i = 0, j = 0, max;
	uint64_t		 copied = 0, s;

	(void)payload;
	*score = 0;
	max = a->size > b->size ? a->size : b->size;
	if (b->size == 0 || max == 0)
		return 0;
	while (i < a->n && j < b->n) {
		if (a->v[i].hash < b->v[j].hash)
			i++;
		else if (a->v[i].hash > b->v[j].hash)
			j++;
		else {
			copied += a->v[i].bytes < b->v[j].bytes ? a->v[i].bytes : b->v[j].bytes;
			i++;
			j++;
		}
	}
	s = copied * SIM_MAX_SCORE / max;
	*score = (int)(s * 100 / SIM_MAX_SCORE);
	return 0;
}

static git_diff_similarity_metric sim_metric = {
	sim_file, sim_buffer, sim_free, sim_score, NULL,
};

/* The part of the selected patch text that falls in the window, gathered as files stream by. */
struct window {
	char	*buf;
	size_t	 len, cap;	/* bytes kept; window size */
	size_t	 offset;	/* first byte of the window in the selected text */
	size_t	 pos;		/* bytes of selected text seen so far */
};

static int
window_add(struct window *w, const char *p, size_t n)
{
	size_t	 from, to;

	from = w->offset > w->pos ? w->offset - w->pos : 0;
	to = w->offset + w->cap > w->pos ? w->offset + w->cap - w->pos : 0;
	if (to > n)
		to = n;
	if (from < to) {
		memcpy(w->buf + w->len, p + from, to - from);
		w->len += to - from;
	}
	w->pos += n;
	return 0;
}

static char
status_of(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED:
		return 'A';
	case GIT_DELTA_DELETED:
		return 'D';
	case GIT_DELTA_RENAMED:
		return 'R';
	case GIT_DELTA_TYPECHANGE:
		return 'T';
	default:
		return 'M';
	}
}

/* Whether the delta concerns path (its new or old side). */
static int
delta_is(const git_diff_delta *d, const char *path)
{
	return (d->new_file.path != NULL && strcmp(d->new_file.path, path) == 0) ||
	    (d->old_file.path != NULL && strcmp(d->old_file.path, path) == 0);
}

/* Fills one file row from its delta and patch. */
static int
file_row(struct repo_diff_file *f, const git_diff_delta *d, git_patch *p, size_t bytes)
{
	size_t	 ctx, adds, dels;
	const char *path = d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;

	memset(f, 0, sizeof *f);
	if (git_patch_line_stats(&ctx, &adds, &dels, p) < 0)
		return ERR_GIT;
	if ((f->path = strdup(path)) == NULL)
		return ERR_NOMEM;
	if (d->status == GIT_DELTA_RENAMED && (f->old_path = strdup(d->old_file.path)) == NULL)
		return ERR_NOMEM;
	f->status = status_of(d->status);
	f->additions = adds;
	f->deletions = dels;
	f->binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
	f->patch_bytes = bytes;
	return 0;
}

/* The trees to compare: merge base (or base) and head. */
static int
trees(git_repository *r, struct repo_diff *out, git_tree **old, git_tree **new_,
    const char *base, const char *head, int three_dot, struct err *e)
{
	git_commit	*bc = NULL, *hc = NULL, *mc = NULL;
	git_oid		 mb;
	int		 rc, grc;

	if ((rc = repo_ref_commit(r, &bc, base, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(r, &hc, head, e)) != 0)
		goto done;
	git_oid_tostr(out->base, sizeof out->base, git_commit_id(bc));
	git_oid_tostr(out->head, sizeof out->head, git_commit_id(hc));
	if (git_commit_tree(new_, hc) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the head commit's tree");
		goto done;
	}
	if (!three_dot) {
		if (git_commit_tree(old, bc) < 0)
			rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the base commit's tree");
		goto done;
	}
	grc = git_merge_base(&mb, r, git_commit_id(bc), git_commit_id(hc));
	if (grc == GIT_ENOTFOUND)
		goto done;	/* unrelated histories: everything in head is new */
	if (grc < 0 || git_commit_lookup(&mc, r, &mb) < 0 || git_commit_tree(old, mc) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "merge base", "cannot compute the merge base");
		goto done;
	}
	git_oid_tostr(out->merge_base, sizeof out->merge_base, &mb);
done:
	git_commit_free(mc);
	git_commit_free(hc);
	git_commit_free(bc);
	return rc;
}

int
repo_diff(struct repo_cache *c, struct repo_diff *out, const char *owner, const char *name,
    const char *base, const char *head, const struct repo_diff_opts *opts, struct err *e)
{
	git_repository		*r;
	git_tree		*old = NULL, *new_ = NULL;
	git_diff		*diff = NULL;
	git_patch		*patch = NULL;
	git_buf			 text = { NULL, 0, 0 };
	git_diff_options	 dopts;
	git_diff_find_options	 fopts;
	struct window		 w;
	size_t			 i, n, found = 0;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&w, 0, sizeof w);
	if ((rc = repo_ref_check(base, e)) != 0 || (rc = repo_ref_check(head, e)) != 0)
		goto done;
	if (opts->path != NULL && (rc = repo_path_check(opts->path, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		goto done;
	if ((rc = trees(r, out, &old, &new_, base, head, opts->three_dot, e)) != 0)
		goto done;
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = DIFF_RENAME_LIMIT;
	fopts.metric = &sim_metric;
	if (git_diff_tree_to_tree(&diff, r, old, new_, &dopts) < 0 ||
	    git_diff_find_similar(diff, &fopts) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "diff", "cannot compute the diff");
		goto done;
	}
	n = git_diff_num_deltas(diff);
	if (n > 0 && (out->files = calloc(n, sizeof *out->files)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	w.cap = opts->cap;
	w.offset = opts->offset;
	if ((w.buf = malloc(w.cap + 1)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		const git_diff_delta	*d = git_diff_get_delta(diff, i);

		if (git_patch_from_diff(&patch, diff, i) < 0 || git_patch_to_buf(&text, patch) < 0) {
			rc = repo_git_fail(e, ERR_GIT, "patch", "cannot compute the diff");
			goto done;
		}
		rc = file_row(&out->files[out->n_files], d, patch, text.size);
		out->n_files++;
		if (rc != 0) {
			rc = rc == ERR_NOMEM ? err_set(e, rc, "out of memory") :
			    repo_git_fail(e, rc, "stats", "cannot compute the diff");
			goto done;
		}
		out->additions += out->files[out->n_files - 1].additions;
		out->deletions += out->files[out->n_files - 1].deletions;
		if (opts->path == NULL || delta_is(d, opts->path)) {
			found = 1;
			window_add(&w, text.ptr, text.size);
		}
		git_buf_dispose(&text);
		git_patch_free(patch);
		patch = NULL;
	}
	if (opts->path != NULL && !found) {
		rc = err_set(e, ERR_NOTFOUND, "'%s' is not changed between %s and %s",
		    opts->path, base, head);
		goto done;
	}
	out->patch_total = w.pos;
	if (w.offset > w.pos) {
		rc = err_set(e, ERR_INVALID, "offset %zu is past the end of the patch (%zu bytes)",
		    w.offset, w.pos);
		goto done;
	}
	if (w.offset + w.len < w.pos) {
		size_t	 k = w.len;

		while (k > 0 && w.buf[k - 1] != '\n')
			k--;
		if (k > 0)	/* else one line longer than the cap: cut inside it */
			w.len = k;
	}
	w.buf[w.len] = '\0';
	out->patch = w.buf;
	out->patch_len = w.len;
	out->truncated = w.offset + w.len < w.pos;
	w.buf = NULL;
done:
	free(w.buf);
	git_buf_dispose(&text);
	git_patch_free(patch);
	git_diff_free(diff);
	git_tree_free(new_);
	git_tree_free(old);
	if (rc != 0)
		repo_diff_release(out);
	return rc;
}

void
repo_diff_release(struct repo_diff *d)
{
	size_t	 i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n_files; i++) {
		free(d->files[i].path);
		free(d->files[i].old_path);
	}
	free(d->files);
	free(d->patch);
	d->files = NULL;
	d->patch = NULL;
	d->n_files = 0;
	d->patch_len = 0;
}

int
repo_merge_base(struct repo_cache *c, char out[41], const char *owner, const char *name,
    const char *a, const char *b, struct err *e)
{
	git_repository	*r;
	git_commit	*ac = NULL, *bc = NULL;
	git_oid		 mb;
	int		 rc, grc;

	out[0] = '\0';
	if ((rc = repo_ref_check(a, e)) != 0 || (rc = repo_ref_check(b, e)) != 0)
		return rc;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if ((rc = repo_ref_commit(r, &ac, a, e)) != 0 ||
	    (rc = repo_ref_commit(r, &bc, b, e)) != 0)
		goto done;
	grc = git_merge_base(&mb, r, git_commit_id(ac), git_commit_id(bc));
	if (grc == 0)
		git_oid_tostr(out, 41, &mb);
	else if (grc != GIT_ENOTFOUND)
		rc = repo_git_fail(e, ERR_GIT, "merge base", "cannot compute the merge base");
done:
	git_commit_free(bc);
	git_commit_free(ac);
	return rc;
}

/* ---- anchors of review discussions (repo_diff_anchor) ---- */

#define ANCHOR_LINE_MAX		400	/* bytes of one line kept in an anchor context */
#define ANCHOR_RANGES_SHOWN	8	/* valid line ranges named in a refusal */

/* The byte length of the valid UTF-8 sequence at p (at most n bytes), 0 when invalid. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	size_t		 len, i;
	uint32_t	 cp;

	if (p[0] < 0x80)
		return p[0] != 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

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
		if ((k = utf8_seq(p + i, len - i)) == 0) {
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
	git_diff_options	 dopts;
	git_diff_find_options	 fopts;
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
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = DIFF_RENAME_LIMIT;
	fopts.metric = &sim_metric;
	if (git_diff_tree_to_tree(&diff, r, old, new_, &dopts) < 0 ||
	    git_diff_find_similar(diff, &fopts) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "diff", "cannot compute the diff");
		goto done;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		d = git_diff_get_delta(diff, i);
		if (delta_is(d, path))
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
