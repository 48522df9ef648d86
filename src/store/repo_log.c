/* repo_log: branches and commit history (with git log's path simplification). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <git2.h>

#include "budget.h"
#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

static int
cmp_branch(const void *a, const void *b)
{
	return strcmp(((const struct repo_branch *)a)->name, ((const struct repo_branch *)b)->name);
}

/* Every local branch, unsorted, into *out. */
static int
all_branches(git_repository *r, struct repo_branch **out, size_t *n, struct err *e)
{
	git_branch_iterator	*it = NULL;
	git_reference		*ref = NULL;
	git_object		*obj = NULL;
	git_branch_t		 type;
	struct repo_branch	*v = NULL, *nv;
	const char		*bname;
	size_t			 cap = 0;
	int			 rc = 0, grc;

	*out = NULL;
	*n = 0;
	if (git_branch_iterator_new(&it, r, GIT_BRANCH_LOCAL) < 0)
		return repo_git_fail(e, ERR_GIT, "branches", "cannot read the repository's branches");
	while ((grc = git_branch_next(&ref, &type, it)) == 0) {
		if (git_branch_name(&bname, ref) < 0 ||
		    (grc = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT)) == GIT_ENOTFOUND ||
		    grc == GIT_EPEEL) {
			git_reference_free(ref);
			ref = NULL;
			continue;	/* a dangling branch is not listed */
		}
		if (grc < 0) {
			/* the commit is there but cannot be read: damaged storage */
			rc = repo_git_fail(e, ERR_GIT, "branch", "cannot read a branch's commit");
			goto done;
		}
		if (*n == cap) {
			cap = cap == 0 ? 32 : cap * 2;
			if ((nv = realloc(v, cap * sizeof *v)) == NULL)
				goto nomem;
			v = nv;
		}
		memset(&v[*n], 0, sizeof v[*n]);
		if ((v[*n].name = strdup(bname)) == NULL)
			goto nomem;
		git_oid_tostr(v[*n].target, sizeof v[*n].target, git_object_id(obj));
		(*n)++;
		git_object_free(obj);
		obj = NULL;
		git_reference_free(ref);
		ref = NULL;
	}
	if (grc != GIT_ITEROVER)
		rc = repo_git_fail(e, ERR_GIT, "branches", "cannot read the repository's branches");
	goto done;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	git_object_free(obj);
	git_reference_free(ref);
	git_branch_iterator_free(it);
	if (rc != 0) {
		repo_branches_free(v, *n);
		v = NULL;
		*n = 0;
	}
	*out = v;
	return rc;
}

int
repo_branches(struct repo_cache *c, struct repo_branch **out, size_t *n, int *truncated,
    const char *owner, const char *name, const char *default_branch, const char *after,
    size_t limit, struct err *e)
{
	git_repository		*r;
	git_reference		*head = NULL;
	struct repo_branch	*v = NULL;
	size_t			 nv = 0, i, first = 0, k;
	char			 def[256] = "";
	int			 rc;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if (default_branch != NULL && default_branch[0] != '\0')
		snprintf(def, sizeof def, "%s", default_branch);
	else if (git_reference_lookup(&head, r, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    strncmp(git_reference_symbolic_target(head), "refs/heads/", 11) == 0)
		snprintf(def, sizeof def, "%s", git_reference_symbolic_target(head) + 11);
	git_reference_free(head);
	if ((rc = all_branches(r, &v, &nv, e)) != 0)
		return rc;
	if (nv > 1)
		qsort(v, nv, sizeof *v, cmp_branch);
	if (after != NULL && after[0] != '\0')
		while (first < nv && strcmp(v[first].name, after) <= 0)
			first++;
	for (i = 0; i < first; i++)
		free(v[i].name);
	k = nv - first > limit ? limit : nv - first;
	for (i = first + k; i < nv; i++)
		free(v[i].name);
	if (k > 0 && first > 0)
		memmove(v, v + first, k * sizeof *v);
	for (i = 0; i < k; i++)
		v[i].is_default = strcmp(v[i].name, def) == 0;
	*truncated = nv - first > limit;
	*out = v;
	*n = k;
	return 0;
}

void
repo_branches_free(struct repo_branch *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n && v != NULL; i++)
		free(v[i].name);
	free(v);
}

/* ---- history ---- */

/* The walk's queue: newest committer date first, then the order they were queued. */
struct qnode {
	git_commit	*c;
	int64_t		 time;
	uint64_t	 seq;
};

struct walk {
	git_repository	*r;
	struct qnode	*heap;
	size_t		 n, cap;
	uint64_t	 seq;
	git_oid		*seen;		/* open addressing; all-zero means empty */
	size_t		 seen_cap, seen_n;
};

static int
qless(const struct qnode *a, const struct qnode *b)
{
	return a->time != b->time ? a->time > b->time : a->seq < b->seq;
}

static size_t
oid_hash(const git_oid *id)
{
	size_t	 h;

	memcpy(&h, id->id, sizeof h);
	return h;
}

static int
is_zero(const git_oid *id)
{
	static const git_oid	 zero;

	return memcmp(id, &zero, sizeof zero) == 0;
}

/* Marks id seen; 1 when it was new, 0 when seen before, -1 on allocation failure. */
static int
mark_seen(struct walk *w, const git_oid *id)
{
	size_t	 i;

	if (2 * (w->seen_n + 1) > w->seen_cap) {
		size_t	 ncap = w->seen_cap == 0 ? 256 : w->seen_cap * 2, j;
		git_oid	*ns = calloc(ncap, sizeof *ns);

		if (ns == NULL)
			return -1;
		for (j = 0; j < w->seen_cap; j++) {
			if (is_zero(&w->seen[j]))
				continue;
			for (i = oid_hash(&w->seen[j]) & (ncap - 1); !is_zero(&ns[i]);
			    i = (i + 1) & (ncap - 1))
				;
			ns[i] = w->seen[j];
		}
		free(w->seen);
		w->seen = ns;
		w->seen_cap = ncap;
	}
	for (i = oid_hash(id) & (w->seen_cap - 1); !is_zero(&w->seen[i]);
	    i = (i + 1) & (w->seen_cap - 1))
		if (git_oid_equal(&w->seen[i], id))
			return 0;
	w->seen[i] = *id;
	w->seen_n++;
	return 1;
}

/* Queues commit c (taken) unless already seen. */
static int
push(struct walk *w, git_commit *c, struct err *e)
{
	struct qnode	 t;
	size_t		 i;
	int		 fresh;

	if ((fresh = mark_seen(w, git_commit_id(c))) <= 0) {
		git_commit_free(c);
		return fresh < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	}
	if (w->n == w->cap) {
		size_t		 ncap = w->cap == 0 ? 64 : w->cap * 2;
		struct qnode	*nh = realloc(w->heap, ncap * sizeof *nh);

		if (nh == NULL) {
			git_commit_free(c);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		w->heap = nh;
		w->cap = ncap;
	}
	i = w->n++;
	w->heap[i].c = c;
	w->heap[i].time = git_commit_time(c);
	w->heap[i].seq = w->seq++;
	while (i > 0 && qless(&w->heap[i], &w->heap[(i - 1) / 2])) {
		t = w->heap[i];
		w->heap[i] = w->heap[(i - 1) / 2];
		w->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static git_commit *
pop(struct walk *w)
{
	git_commit	*c;
	struct qnode	 t;
	size_t		 i = 0, l, m;

	if (w->n == 0)
		return NULL;
	c = w->heap[0].c;
	w->heap[0] = w->heap[--w->n];
	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < w->n && qless(&w->heap[l], &w->heap[m]))
			m = l;
		if (l + 1 < w->n && qless(&w->heap[l + 1], &w->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		t = w->heap[i];
		w->heap[i] = w->heap[m];
		w->heap[m] = t;
		i = m;
	}
	return c;
}

static void
walk_release(struct walk *w)
{
	while (w->n > 0)
		git_commit_free(w->heap[--w->n].c);
	free(w->heap);
	free(w->seen);
}

/* What path is in commit c: *present and its object id. */
static int
path_state(git_commit *c, const char *path, int *present, git_oid *id, struct err *e)
{
	git_tree	*tree = NULL;
	git_tree_entry	*entry = NULL;
	int		 grc;

	*present = 0;
	if (git_commit_tree(&tree, c) < 0)
		return repo_git_fail(e, ERR_GIT, "tree", "cannot read a commit's tree");
	grc = git_tree_entry_bypath(&entry, tree, path);
	if (grc == 0) {
		*present = 1;
		git_oid_cpy(id, git_tree_entry_id(entry));
	}
	git_tree_entry_free(entry);
	git_tree_free(tree);
	if (grc < 0 && grc != GIT_ENOTFOUND)
		return repo_git_fail(e, ERR_GIT, "tree entry", "cannot read a commit's tree");
	return 0;
}

/*
 * One step of the walk for commit c: queues the parents to follow and sets
 * *show.  Without a path every commit shows and every parent is followed.
 * With one, as git's default history simplification: a merge that leaves
 * path as one parent had it follows only that parent and is not shown.
 */
static int
step(struct walk *w, git_commit *c, const char *path, int *show, struct err *e)
{
	git_commit	*p = NULL;
	git_oid		 mine, theirs;
	unsigned	 i, np = git_commit_parentcount(c);
	int		 have, phave, rc, same_any = 0;
	unsigned	 same_at = 0;

	*show = 1;
	if (path != NULL) {
		if ((rc = path_state(c, path, &have, &mine, e)) != 0)
			return rc;
		for (i = 0; i < np && !same_any; i++) {
			if (git_commit_parent(&p, c, i) < 0)
				return repo_git_fail(e, ERR_GIT, "parent", "cannot read a parent commit");
			rc = path_state(p, path, &phave, &theirs, e);
			git_commit_free(p);
			p = NULL;
			if (rc != 0)
				return rc;
			if (phave == have && (!have || git_oid_equal(&mine, &theirs))) {
				same_any = 1;
				same_at = i;
			}
		}
		*show = np == 0 ? have : !same_any;
		if (same_any) {
			if (git_commit_parent(&p, c, same_at) < 0)
				return repo_git_fail(e, ERR_GIT, "parent", "cannot read a parent commit");
			return push(w, p, e);
		}
	}
	for (i = 0; i < np; i++) {
		if (git_commit_parent(&p, c, i) < 0)
			return repo_git_fail(e, ERR_GIT, "parent", "cannot read a parent commit");
		if ((rc = push(w, p, e)) != 0)
			return rc;
		p = NULL;
	}
	return 0;
}

static int
commit_row(struct repo_commit *out, git_commit *c)
{
	const git_signature	*a = git_commit_author(c);
	const char		*subject = git_commit_summary(c);
	time_t			 t = (time_t)a->when.time;
	struct tm		 tm;

	memset(out, 0, sizeof *out);
	git_oid_tostr(out->id, sizeof out->id, git_commit_id(c));
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out->date, sizeof out->date, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		out->date[0] = '\0';
	if ((out->author_name = strdup(a->name != NULL ? a->name : "")) == NULL ||
	    (out->author_email = strdup(a->email != NULL ? a->email : "")) == NULL ||
	    (out->subject = strdup(subject != NULL ? subject : "")) == NULL)
		return ERR_NOMEM;
	return 0;
}

int
repo_log(struct repo_cache *c, struct repo_log *out, const char *owner, const char *name,
    const char *ref, const char *path, const char *after, size_t limit,
    struct budget *b, struct err *e)
{
	struct walk	 w;
	git_commit	*tip = NULL, *cur = NULL;
	char		 id[41];
	size_t		 hexlen;
	int		 rc, show, skipping = after != NULL;

	memset(out, 0, sizeof *out);
	memset(&w, 0, sizeof w);
	if (ref == NULL || ref[0] == '\0')
		ref = "HEAD";
	if (after != NULL && ((hexlen = strspn(after, "0123456789abcdef")) != 40 ||
	    after[40] != '\0')) {
		rc = err_set(e, ERR_INVALID, "cursor must be a full commit id from an earlier page");
		goto done;
	}
	if ((rc = repo_ref_check(ref, e)) != 0)
		goto done;
	if (path != NULL && (rc = repo_path_check(path, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &w.r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(w.r, &tip, ref, e)) != 0)
		goto done;
	git_oid_tostr(out->head, sizeof out->head, git_commit_id(tip));
	if ((rc = push(&w, tip, e)) != 0)
		goto done;
	while ((cur = pop(&w)) != NULL) {
		if (budget_expired(b)) {
			rc = budget_fail(b, e, "reading the history", "start from a ref nearer to "
			    "what you look for, or pass a path that changed more recently");
			goto done;
		}
		if ((rc = step(&w, cur, path, &show, e)) != 0)
			goto done;
		git_oid_tostr(id, sizeof id, git_commit_id(cur));
		if (skipping) {
			if (strcmp(id, after) == 0)
				skipping = 0;
		} else if (show && out->n == limit) {
			out->truncated = 1;
			break;
		} else if (show) {
			if (out->commits == NULL &&
			    (out->commits = calloc(limit, sizeof *out->commits)) == NULL) {
				rc = err_set(e, ERR_NOMEM, "out of memory");
				goto done;
			}
			rc = commit_row(&out->commits[out->n], cur);
			out->n++;
			if (rc != 0) {
				rc = err_set(e, rc, "out of memory");
				goto done;
			}
		}
		git_commit_free(cur);
		cur = NULL;
	}
	if (skipping)
		rc = err_set(e, ERR_INVALID, "cursor %s is not in the history of '%s'", after, ref);
done:
	git_commit_free(cur);
	walk_release(&w);
	if (rc != 0)
		repo_log_release(out);
	return rc;
}

void
repo_log_release(struct repo_log *l)
{
	size_t	 i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->commits[i].author_name);
		free(l->commits[i].author_email);
		free(l->commits[i].subject);
	}
	free(l->commits);
	l->commits = NULL;
	l->n = 0;
}
