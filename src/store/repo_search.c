/* repo_search: code search over the tree at a ref (fixed string or pcre2), with libgit2 only. */
#include <sys/param.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <git2.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "budget.h"
#include "err.h"
#include "json.h"
#include "log.h"
#include "store/repo.h"
#include "store/repo-internal.h"

#define SNIPPET_MAX		200		/* bytes of a long line kept around the match */
#define SNIPPET_BEFORE		60		/* of which before the match */
#define RE_MATCH_LIMIT		1000000		/* pcre2 match() calls per attempt */
#define RE_DEPTH_LIMIT		10000		/* backtracking depth */
#define RE_HEAP_LIMIT		20000		/* KiB of backtracking memory */
#define RE_JIT_STACK		(1024 * 1024)	/* bytes of JIT backtracking stack at most */
#define SEARCH_THREADS_MAX	4		/* threads reading one search's files */
#define SEARCH_PART_MIN		64		/* files worth a thread of their own */
#define SEARCH_SPEND_EVERY	4096		/* steps counted locally before the budget sees them */
#define SEARCH_WINDOW		(32 * 1024 * 1024)	/* a pack window while searching */
#define SEARCH_MAPPED		(256 * 1024 * 1024)	/* pack windows mapped at once while searching */
#define SEARCH_BINARY_PEEK	8000		/* bytes looked at for a NUL, as git does */

/* A file the tree walk found for the search: read by one part. */
struct cand {
	char		*path;
	git_oid		 id;
};

struct search {
	const struct repo_search_opts	*o;
	struct repo_search		*out;
	git_repository			*r;
	git_odb				*odb;
	struct cand			*cands;	/* what the walk collected */
	size_t				 n_cands, cap_cands;
	pcre2_code			*re;
	pcre2_match_data		*md;
	pcre2_match_context		*mctx;
	pcre2_jit_stack			*jstack;
	size_t				 seen;	/* hits found, including skipped ones */
	int64_t				 steps;	/* spent here, not yet taken from the budget */
	int				 stop;	/* BUDGET_TIME or BUDGET_STEPS: stopped early */
	size_t				 cap_hits;
	char				 path[4096 + 256];
	struct err			*e;
	int				 rc;
};

/* A new NUL-terminated copy of p[0, n) with invalid UTF-8 replaced by U+FFFD. */
static char *
utf8_copy(const unsigned char *p, size_t n)
{
	char	*s, *o;
	size_t	 i = 0, k;

	if ((s = malloc(3 * n + 1)) == NULL)
		return NULL;
	o = s;
	while (i < n) {
		if ((k = json_utf8_len((const char *)p + i, n - i)) == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(o, p + i, k);
		o += k;
		i += k;
	}
	*o = '\0';
	return s;
}

/* The snippet for a match at m on the line [ls, le). */
static char *
snippet(const unsigned char *ls, const unsigned char *le, const unsigned char *m)
{
	const unsigned char	*s = ls, *t = le;

	if (t > s && t[-1] == '\r')
		t--;
	if ((size_t)(t - s) > SNIPPET_MAX) {
		s = m - ls > SNIPPET_BEFORE ? m - SNIPPET_BEFORE : ls;
		if ((size_t)(t - s) > SNIPPET_MAX)
			t = s + SNIPPET_MAX;
		else
			s = t - SNIPPET_MAX;
		while (s > ls && s < t && (*s & 0xc0) == 0x80)
			s++;
		while (t < le && t > s && (*t & 0xc0) == 0x80)
			t--;
	}
	return utf8_copy(s, (size_t)(t - s));
}

/* Room for one more hit in s->out; -1 when out of memory. */
static int
hits_room(struct search *s)
{
	struct repo_search_hit	*h;
	size_t			 cap;

	if (s->out->n_hits < s->cap_hits)
		return 0;
	cap = s->cap_hits == 0 ? 16 : s->cap_hits * 2;
	if ((h = realloc(s->out->hits, cap * sizeof(*h))) == NULL)
		return -1;
	s->out->hits = h;
	s->cap_hits = cap;
	return 0;
}

/* Spends n steps, counted here until there are SEARCH_SPEND_EVERY (or now); 1: stop. */
static int
spend(struct search *s, int64_t n, int now)
{
	s->steps += n;
	if (s->stop == BUDGET_OK && (now || s->steps >= SEARCH_SPEND_EVERY)) {
		s->stop = (int)budget_spend(s->o->budget, s->steps);
		s->steps = 0;
	}
	return s->stop != BUDGET_OK;
}

/* Marks the answer as cut short when the search stopped before it was full; 0. */
static int
stopped(struct search *s)
{
	if (s->stop != BUDGET_OK && !s->out->truncated) {
		s->out->stopped = s->stop;
		s->out->truncated = 1;
	}
	return 0;
}

/* pcre2's callout at every item of the pattern: one step of the budget. */
static int
step(pcre2_callout_block *cb, void *arg)
{
	(void)cb;
	return spend(arg, 1, 0) ? PCRE2_ERROR_CALLOUT : 0;
}

/* Records a hit (or only counts it while paging); 1 when the search is done. */
static int
hit(struct search *s, const unsigned char *ls, const unsigned char *le,
    const unsigned char *m, size_t line)
{
	struct repo_search	*out = s->out;
	struct repo_search_hit	*h;

	if (spend(s, BUDGET_HIT_STEPS, 0))
		return 1;
	s->seen++;
	if (s->seen <= s->o->offset)
		return 0;
	if (out->n_hits == s->o->limit) {
		out->truncated = 1;
		return 1;
	}
	if (hits_room(s) != 0)
		goto nomem;
	h = &out->hits[out->n_hits];
	memset(h, 0, sizeof *h);
	out->n_hits++;
	h->line = line;
	if ((h->path = strdup(s->path)) == NULL || (h->snippet = snippet(ls, le, m)) == NULL)
		goto nomem;
	return 0;
nomem:
	s->rc = err_set(s->e, ERR_NOMEM, "out of memory");
	return -1;
}

/* Searches one blob; 1 when the search is done, -1 on error. */
static int
scan(struct search *s, const unsigned char *data, size_t n)
{
	const unsigned char	*p = data, *end = data + n, *m, *ls, *le, *counted = data;
	size_t			 line = 1;
	int			 r, mr;

	while (p < end) {
		mr = pcre2_match(s->re, data, n, (PCRE2_SIZE)(p - data), 0, s->md, s->mctx);
		if (mr == PCRE2_ERROR_NOMATCH)
			return 0;
		if (mr == PCRE2_ERROR_CALLOUT && s->stop != BUDGET_OK)
			return 1;
		if (mr == PCRE2_ERROR_MATCHLIMIT || mr == PCRE2_ERROR_DEPTHLIMIT ||
		    mr == PCRE2_ERROR_HEAPLIMIT || mr == PCRE2_ERROR_JIT_STACKLIMIT) {
			s->rc = err_set(s->e, ERR_INVALID, "the regular expression is too "
			    "costly to run (it hit the match limit in %s): simplify it",
			    s->path);
			return -1;
		}
		if (mr < 0) {
			s->rc = err_set(s->e, ERR_INTERNAL, "pcre2_match failed (%d)", mr);
			return -1;
		}
		m = data + pcre2_get_ovector_pointer(s->md)[0];
		while ((counted = memchr(counted, '\n', (size_t)(m - counted))) != NULL) {
			line++;
			counted++;
		}
		counted = m;
		ls = m;
		while (ls > data && ls[-1] != '\n')
			ls--;
		le = memchr(m, '\n', (size_t)(end - m));
		if (le == NULL)
			le = end;
		if ((r = hit(s, ls, le, m, line)) != 0)
			return r;
		if (le == end)
			break;
		p = le + 1;
		line++;
		counted = p;
	}
	return 0;
}

/* Collects the text-file candidates of the tree: blobs, not links, within the glob. */
static int
walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct search		*s = payload;
	struct cand		*c;
	const char		*name = git_tree_entry_name(entry);

	if (budget_expired(s->o->budget)) {
		s->stop = BUDGET_TIME;
		return -1;
	}
	if (git_tree_entry_type(entry) == GIT_OBJECT_TREE && s->o->glob != NULL)	/* 1: skip it */
		return (size_t)snprintf(s->path, sizeof s->path, "%s%s", root, name) >= sizeof s->path ||
		    !repo_glob_dir_may_match(s->o->glob, s->path);
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
		return 0;
	if ((size_t)snprintf(s->path, sizeof s->path, "%s%s", root, name) >= sizeof s->path)
		return 0;
	if (s->o->glob != NULL && !repo_glob_match(s->o->glob, s->path))
		return 0;
	if (s->n_cands == s->cap_cands) {
		size_t	 cap = s->cap_cands == 0 ? 256 : s->cap_cands * 2;

		if ((c = realloc(s->cands, cap * sizeof(*c))) == NULL)
			goto nomem;
		s->cands = c;
		s->cap_cands = cap;
	}
	c = &s->cands[s->n_cands];
	if ((c->path = strdup(s->path)) == NULL)
		goto nomem;
	git_oid_cpy(&c->id, git_tree_entry_id(entry));
	s->n_cands++;
	return 0;
nomem:
	s->rc = err_set(s->e, ERR_NOMEM, "out of memory");
	return -1;
}

/* Searches the files c[0, n) in order until done; 0, or -1 with s->rc set. */
static int
scan_files(struct search *s, const struct cand *c, size_t n)
{
	git_blob	*blob = NULL;
	const void	*data;
	git_object_t	 type;
	size_t		 i, size;
	int		 r = 0;

	for (i = 0; i < n && r == 0; i++) {
		if (spend(s, 1, 1))
			break;
		snprintf(s->path, sizeof s->path, "%s", c[i].path);
		if (git_odb_read_header(&size, &type, s->odb, &c[i].id) < 0) {
			s->rc = repo_git_fail(s->e, ERR_GIT, "odb header", "cannot read a file");
			return -1;
		}
		if (size > s->o->max_blob) {
			s->out->skipped++;
			continue;
		}
		if (git_blob_lookup(&blob, s->r, &c[i].id) < 0) {
			s->rc = repo_git_fail(s->e, ERR_GIT, "blob", "cannot read a file");
			return -1;
		}
		/* binary: a NUL early on, git grep -I's test (libgit2's also counts controls) */
		data = git_blob_rawcontent(blob);
		size = (size_t)git_blob_rawsize(blob);
		if (memchr(data, '\0', size < SEARCH_BINARY_PEEK ? size : SEARCH_BINARY_PEEK) == NULL)
			r = scan(s, data, size);
		git_blob_free(blob);
	}
	return r < 0 ? -1 : 0;
}

/*
 * One share of a search run by its own thread: its own repository handle
 * (libgit2 objects are not shared between threads), match data and hits.
 */
struct part {
	struct search		 s;
	struct repo_search	 out;
	struct repo_search_opts	 o;
	struct err		 e;
	const char		*gitdir;
	const struct cand	*c;
	size_t			 n;
	pthread_t		 th;
	int			 started;
};

static void *
part_run(void *arg)
{
	struct part	*p = arg;
	struct search	*s = &p->s;

	if (git_repository_open_bare(&s->r, p->gitdir) < 0 ||
	    git_repository_odb(&s->odb, s->r) < 0) {
		s->rc = repo_git_fail(s->e, ERR_GIT, "open", "cannot open the repository");
		return NULL;
	}
	(void)scan_files(s, p->c, p->n);
	return NULL;
}

/* A thread's own match data and limits for the compiled s->re. */
static int
matcher_init(struct search *s, struct err *e)
{
	if ((s->md = pcre2_match_data_create_from_pattern(s->re, NULL)) == NULL ||
	    (s->mctx = pcre2_match_context_create(NULL)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	pcre2_set_match_limit(s->mctx, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mctx, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(s->mctx, RE_HEAP_LIMIT);
	pcre2_set_callout(s->mctx, step, s);
	/* JIT code backtracks on its own stack: give it room, within a bound */
	if ((s->jstack = pcre2_jit_stack_create(32 * 1024, RE_JIT_STACK, NULL)) != NULL)
		pcre2_jit_stack_assign(s->mctx, NULL, s->jstack);
	return 0;
}

static void
matcher_free(struct search *s)
{
	pcre2_match_context_free(s->mctx);
	pcre2_jit_stack_free(s->jstack);
	pcre2_match_data_free(s->md);
	s->mctx = NULL;
	s->jstack = NULL;
	s->md = NULL;
}

/*
 * Compiles the pattern (literal: a fixed string); ERR_INVALID with pcre2's
 * message.  A fixed string goes through pcre2 too: its JIT scans for a
 * caseless literal faster than a byte-at-a-time matcher does.
 */
static int
compile(struct search *s, const char *pattern, int literal, struct err *e)
{
	PCRE2_SIZE	 erroff;
	PCRE2_UCHAR	 msg[256];
	int		 errcode;

	/* a pattern's every step calls step(), which spends the request's budget */
	s->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    PCRE2_CASELESS | (literal ? PCRE2_LITERAL : PCRE2_MULTILINE | PCRE2_AUTO_CALLOUT),
	    &errcode, &erroff, NULL);
	if (s->re == NULL) {
		if (errcode == PCRE2_ERROR_NOMEMORY)
			return err_set(e, ERR_NOMEM, "out of memory");
		pcre2_get_error_message(errcode, msg, sizeof msg);
		return err_set(e, ERR_INVALID, "invalid regular expression at offset %zu: %s",
		    (size_t)erroff, (char *)msg);
	}
	(void)pcre2_jit_compile(s->re, PCRE2_JIT_COMPLETE);	/* the interpreter is the fallback */
	return matcher_init(s, e);
}

/*
 * Moves the parts' hits, in part order, into s->out as one search in tree
 * order would have found them: offset skipped, limit kept, truncated when
 * more follow.  An error counts only in a part the sequential search would
 * have reached.  A part that was stopped early ends the merge after its
 * hits: what the parts after it found is not next in tree order.
 * Returns 0 or the error (e set).
 */
static int
parts_merge(struct search *s, struct part *parts, size_t np, size_t need, struct err *e)
{
	struct repo_search	*out = s->out;
	size_t			 i, k, seen = 0;
	int			 rc = 0;

	for (i = 0; i < np && seen < need; i++) {
		if (parts[i].s.rc != 0) {
			*e = parts[i].e;
			rc = parts[i].s.rc;
			break;
		}
		out->skipped += parts[i].out.skipped;
		for (k = 0; k < parts[i].out.n_hits; k++, seen++) {
			if (seen < s->o->offset || out->n_hits == s->o->limit) {
				out->truncated |= out->n_hits == s->o->limit;
				continue;
			}
			if (hits_room(s) != 0)
				return err_set(e, ERR_NOMEM, "out of memory");
			out->hits[out->n_hits++] = parts[i].out.hits[k];
			memset(&parts[i].out.hits[k], 0, sizeof(parts[i].out.hits[k]));
		}
		if (parts[i].s.stop != BUDGET_OK && seen < need) {
			out->stopped = parts[i].s.stop;
			out->truncated = 1;
			break;
		}
	}
	return rc;
}

/*
 * Reads the candidates.  A large tree is cut into contiguous shares read
 * by up to SEARCH_THREADS_MAX threads (one per CPU, as git grep does),
 * each with its own repository handle; the first share is read here with
 * the cached one.  Each share stops once it alone has offset + limit + 1
 * hits, so the merge can tell what one pass in tree order would return.
 */
static int
search_parts(struct search *s, struct err *e)
{
	struct part	 parts[SEARCH_THREADS_MAX];
	long		 ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t		 np, i, per, need = s->o->offset + s->o->limit + 1;
	int		 rc = 0;

	np = ncpu < 1 ? 1 : ncpu > SEARCH_THREADS_MAX ? SEARCH_THREADS_MAX : (size_t)ncpu;
	if (np > s->n_cands / SEARCH_PART_MIN)
		np = s->n_cands / SEARCH_PART_MIN;
	if (np <= 1 || !(git_libgit2_features() & GIT_FEATURE_THREADS))
		return scan_files(s, s->cands, s->n_cands) < 0 ? s->rc : stopped(s);
	memset(parts, 0, sizeof(parts));
	per = (s->n_cands + np - 1) / np;
	for (i = 0; i < np; i++) {
		struct part	*p = &parts[i];

		p->c = s->cands + i * per;
		p->n = i * per >= s->n_cands ? 0 :
		    s->n_cands - i * per < per ? s->n_cands - i * per : per;
		p->o = *s->o;
		p->o.offset = 0;
		p->o.limit = need;
		p->s.o = &p->o;
		p->s.out = &p->out;
		p->s.e = &p->e;
		p->s.re = s->re;
		p->gitdir = git_repository_path(s->r);
		err_clear(&p->e);
		if ((rc = matcher_init(&p->s, e)) != 0)
			goto done;
	}
	parts[0].s.r = s->r;
	parts[0].s.odb = s->odb;
	for (i = 1; i < np; i++)
		parts[i].started = pthread_create(&parts[i].th, NULL, part_run, &parts[i]) == 0;
	(void)scan_files(&parts[0].s, parts[0].c, parts[0].n);
	for (i = 1; i < np; i++) {
		if (parts[i].started)
			pthread_join(parts[i].th, NULL);
		else
			(void)part_run(&parts[i]);	/* no thread: read it here */
	}
	rc = parts_merge(s, parts, np, need, e);
done:
	for (i = 0; i < np; i++) {
		matcher_free(&parts[i].s);
		repo_search_release(&parts[i].out);
		if (i > 0) {
			git_odb_free(parts[i].s.odb);
			git_repository_free(parts[i].s.r);
		}
	}
	return rc;
}

/*
 * Widens libgit2's pack windows for one search (old[]: the sizes to restore).
 * A tree's blobs lie all over a pack: in the usual windows (repo_global_init)
 * a search of a 51 MB pack mapped and unmapped one 4,000 times, and each
 * munmap in a threaded process flushes the other cores' TLBs; git maps a pack
 * in 1 GiB windows.  Process-wide: a worker serves one request at a time.
 */
static void
windows_widen(size_t old[2])
{
	git_libgit2_opts(GIT_OPT_GET_MWINDOW_SIZE, &old[0]);
	git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &old[1]);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, MAX(old[0], (size_t)SEARCH_WINDOW));
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, MAX(old[1], (size_t)SEARCH_MAPPED));
}

static void
windows_restore(const size_t old[2])
{
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, old[0]);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, old[1]);
}

int
repo_search(struct repo_cache *c, struct repo_search *out, const char *owner, const char *name,
    const char *ref, const struct repo_search_opts *opts, struct err *e)
{
	struct search	 s;
	git_commit	*commit = NULL;
	git_tree	*tree = NULL;
	size_t		 qlen, win[2];
	int		 rc, grc;

	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.o = opts;
	s.out = out;
	s.e = e;
	if (ref == NULL || ref[0] == '\0')
		ref = "HEAD";
	qlen = opts->query != NULL ? strlen(opts->query) : 0;
	if (qlen == 0) {
		rc = err_set(e, ERR_INVALID, "query must not be empty");
		goto done;
	}
	if ((rc = repo_ref_check(ref, e)) != 0)
		goto done;
	if ((rc = compile(&s, opts->query, !opts->regex, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &s.r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(s.r, &commit, ref, e)) != 0)
		goto done;
	git_oid_tostr(out->commit, sizeof out->commit, git_commit_id(commit));
	if (git_repository_odb(&s.odb, s.r) < 0 || git_commit_tree(&tree, commit) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the commit's tree");
		goto done;
	}
	windows_widen(win);
	grc = git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &s);
	if (s.rc != 0)
		rc = s.rc;
	else if (s.stop != BUDGET_OK)
		rc = stopped(&s);
	else if (grc < 0)
		rc = repo_git_fail(e, ERR_GIT, "tree walk", "cannot read the commit's tree");
	else
		rc = search_parts(&s, e);
	windows_restore(win);
done:
	matcher_free(&s);
	pcre2_code_free(s.re);
	while (s.n_cands > 0)
		free(s.cands[--s.n_cands].path);
	free(s.cands);
	git_tree_free(tree);
	git_odb_free(s.odb);
	git_commit_free(commit);
	if (rc != 0)
		repo_search_release(out);
	return rc;
}

void
repo_search_release(struct repo_search *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n_hits; i++) {
		free(s->hits[i].path);
		free(s->hits[i].snippet);
	}
	free(s->hits);
	s->hits = NULL;
	s->n_hits = 0;
}
