/* repo_diff: the diff between two refs (two-dot or three-dot) as git prints it, with libgit2. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "budget.h"
#include "buf.h"
#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

#define REPO_RENAME_LIMIT	1000	/* git's diff.renameLimit default */


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

/* libgit2 calls this for each file it compares: stop once the deadline has passed. */
static int
diff_progress(const git_diff *so_far, const char *old_path, const char *new_path, void *arg)
{
	(void)so_far;
	(void)old_path;
	(void)new_path;
	return budget_expired(arg) ? -1 : 0;
}

int
repo_tree_diff(git_diff **out, git_repository *r, git_tree *old, git_tree *new_,
    struct budget *b, struct err *e)
{
	git_diff_options	 dopts;
	git_diff_find_options	 fopts;

	*out = NULL;
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.progress_cb = diff_progress;
	dopts.payload = b;
	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = REPO_RENAME_LIMIT;
	fopts.metric = &sim_metric;
	if (git_diff_tree_to_tree(out, r, old, new_, &dopts) < 0 || budget_expired(b) ||
	    git_diff_find_similar(*out, &fopts) < 0) {
		git_diff_free(*out);
		*out = NULL;
		if (budget_expired(b))
			return budget_fail(b, e, "comparing the trees", REPO_DIFF_HINT);
		return repo_git_fail(e, ERR_GIT, "diff", "cannot compute the diff");
	}
	return 0;
}

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

int
repo_delta_is(const git_diff_delta *d, const char *path)
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

int
repo_diff_trees(git_repository *r, struct repo_diff *out, git_tree **old, git_tree **new_,
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
	if ((rc = repo_diff_trees(r, out, &old, &new_, base, head, opts->three_dot, e)) != 0)
		goto done;
	if ((rc = repo_tree_diff(&diff, r, old, new_, opts->budget, e)) != 0)
		goto done;
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

		if (budget_expired(opts->budget)) {
			rc = budget_fail(opts->budget, e, "computing the diff", REPO_DIFF_HINT);
			goto done;
		}
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
		if (opts->path == NULL || repo_delta_is(d, opts->path)) {
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
