/* repo_search: code search over the tree at a ref (fixed string or pcre2), with libgit2 only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "err.h"
#include "log.h"
#include "store/repo.h"
#include "store/repo-internal.h"

#define SNIPPET_MAX		200		/* bytes of a long line kept around the match */
#define SNIPPET_BEFORE		60		/* of which before the match */
#define RE_MATCH_LIMIT		1000000		/* pcre2 match() calls per attempt */
#define RE_DEPTH_LIMIT		10000		/* backtracking depth */
#define RE_HEAP_LIMIT		20000		/* KiB of backtracking memory */
#define RE_JIT_STACK		(1024 * 1024)	/* bytes of JIT backtracking stack at most */

/* The fixed-string matcher: the needle folded to lower case and its rarest byte. */
struct needle {
	const unsigned char	*s;	/* folded copy */
	size_t			 n;
	size_t			 rare;	/* index of the byte memchr looks for */
	unsigned char		 lo, up;	/* that byte in both cases */
};

struct search {
	const struct repo_search_opts	*o;
	struct repo_search		*out;
	git_repository			*r;
	git_odb				*odb;
	struct needle			 nd;
	pcre2_code			*re;
	pcre2_match_data		*md;
	pcre2_match_context		*mctx;
	pcre2_jit_stack			*jstack;
	size_t				 seen;	/* hits found, including skipped ones */
	size_t				 cap_hits;
	char				 path[4096 + 256];
	struct err			*e;
	int				 rc;
};

static unsigned char fold[256];

static void
fold_init(void)
{
	int	 i;

	for (i = 0; i < 256; i++)
		fold[i] = (unsigned char)(i >= 'A' && i <= 'Z' ? i + 32 : i);
}

/* A rough rank of how common a byte is in source text; lower is rarer. */
static int
byte_rank(unsigned char c)
{
	static const char common[] = " etaoinsrlcdhu\t\n";

	if (strchr(common, c) != NULL && c != '\0')
		return 3;
	if ((c >= 'a' && c <= 'z') || c == '_' || c == '.' || c == '(' || c == ')')
		return 2;
	if (c >= 0x80)
		return 0;
	return 1;
}

static void
needle_init(struct needle *nd, unsigned char *folded, const char *q, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		folded[i] = fold[(unsigned char)q[i]];
	nd->s = folded;
	nd->n = n;
	nd->rare = 0;
	for (i = 1; i < n; i++)
		if (byte_rank(folded[i]) < byte_rank(folded[nd->rare]))
			nd->rare = i;
	nd->lo = folded[nd->rare];
	nd->up = (unsigned char)(nd->lo >= 'a' && nd->lo <= 'z' ? nd->lo - 32 : nd->lo);
}

static int
equal_folded(const unsigned char *h, const unsigned char *folded, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (fold[h[i]] != folded[i])
			return 0;
	return 1;
}

/* The first case-insensitive occurrence of the needle in h[0, hn), or NULL. */
static const unsigned char *
find_ci(const unsigned char *h, size_t hn, const struct needle *nd)
{
	const unsigned char	*p, *end, *a, *b, *cand;

	if (hn < nd->n)
		return NULL;
	p = h + nd->rare;
	end = h + hn - (nd->n - nd->rare - 1);	/* the rare byte's last possible place + 1 */
	a = memchr(p, nd->lo, (size_t)(end - p));
	b = nd->up != nd->lo ? memchr(p, nd->up, (size_t)(end - p)) : NULL;
	while (a != NULL || b != NULL) {
		cand = a == NULL ? b : b == NULL ? a : a < b ? a : b;
		if (equal_folded(cand - nd->rare, nd->s, nd->n))
			return cand - nd->rare;
		if (cand == a)
			a = memchr(cand + 1, nd->lo, (size_t)(end - cand - 1));
		else
			b = memchr(cand + 1, nd->up, (size_t)(end - cand - 1));
	}
	return NULL;
}

/* Length of the valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	uint32_t	 cp;
	size_t		 len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
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
		if ((k = utf8_len(p + i, n - i)) == 0) {
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

/* Records a hit (or only counts it while paging); 1 when the search is done. */
static int
hit(struct search *s, const unsigned char *data, const unsigned char *ls,
    const unsigned char *le, const unsigned char *m, size_t line)
{
	struct repo_search	*out = s->out;
	struct repo_search_hit	*h;

	(void)data;
	s->seen++;
	if (s->seen <= s->o->offset)
		return 0;
	if (out->n_hits == s->o->limit) {
		out->truncated = 1;
		return 1;
	}
	if (out->n_hits == s->cap_hits) {
		size_t	 cap = s->cap_hits == 0 ? 16 : s->cap_hits * 2;

		if ((h = realloc(out->hits, cap * sizeof *h)) == NULL)
			goto nomem;
		out->hits = h;
		s->cap_hits = cap;
	}
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
	int			 r;

	while (p < end) {
		if (s->re == NULL) {
			if ((m = find_ci(p, (size_t)(end - p), &s->nd)) == NULL)
				return 0;
		} else {
			int	 mr;

			mr = pcre2_match(s->re, data, n, (PCRE2_SIZE)(p - data), 0, s->md, s->mctx);
			if (mr == PCRE2_ERROR_NOMATCH)
				return 0;
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
		}
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
		if ((r = hit(s, data, ls, le, m, line)) != 0)
			return r;
		if (le == end)
			break;
		p = le + 1;
		line++;
		counted = p;
	}
	return 0;
}

static int
walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct search		*s = payload;
	const git_oid		*id = git_tree_entry_id(entry);
	const char		*name = git_tree_entry_name(entry);
	git_blob		*blob = NULL;
	git_object_t		 type;
	size_t			 size;
	int			 r = 0;

	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
		return 0;
	if ((size_t)snprintf(s->path, sizeof s->path, "%s%s", root, name) >= sizeof s->path)
		return 0;
	if (s->o->glob != NULL && !repo_glob_match(s->o->glob, s->path))
		return 0;
	if (git_odb_read_header(&size, &type, s->odb, id) < 0) {
		s->rc = repo_git_fail(s->e, ERR_GIT, "odb header", "cannot read a file");
		return -1;
	}
	if (size > s->o->max_blob) {
		s->out->skipped++;
		return 0;
	}
	if (git_blob_lookup(&blob, s->r, id) < 0) {
		s->rc = repo_git_fail(s->e, ERR_GIT, "blob", "cannot read a file");
		return -1;
	}
	if (!git_blob_is_binary(blob))
		r = scan(s, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return r == 0 ? 0 : -1;
}

/* Compiles the pattern; ERR_INVALID with pcre2's message. */
static int
compile(struct search *s, const char *pattern, struct err *e)
{
	PCRE2_SIZE	 erroff;
	PCRE2_UCHAR	 msg[256];
	int		 errcode;

	s->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    PCRE2_CASELESS | PCRE2_MULTILINE, &errcode, &erroff, NULL);
	if (s->re == NULL) {
		if (errcode == PCRE2_ERROR_NOMEMORY)
			return err_set(e, ERR_NOMEM, "out of memory");
		pcre2_get_error_message(errcode, msg, sizeof msg);
		return err_set(e, ERR_INVALID, "invalid regular expression at offset %zu: %s",
		    (size_t)erroff, (char *)msg);
	}
	(void)pcre2_jit_compile(s->re, PCRE2_JIT_COMPLETE);	/* the interpreter is the fallback */
	if ((s->md = pcre2_match_data_create_from_pattern(s->re, NULL)) == NULL ||
	    (s->mctx = pcre2_match_context_create(NULL)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	pcre2_set_match_limit(s->mctx, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mctx, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(s->mctx, RE_HEAP_LIMIT);
	/* JIT code backtracks on its own stack: give it room, within a bound */
	if ((s->jstack = pcre2_jit_stack_create(32 * 1024, RE_JIT_STACK, NULL)) != NULL)
		pcre2_jit_stack_assign(s->mctx, NULL, s->jstack);
	return 0;
}

int
repo_search(struct repo_cache *c, struct repo_search *out, const char *owner, const char *name,
    const char *ref, const struct repo_search_opts *opts, struct err *e)
{
	struct search	 s;
	git_commit	*commit = NULL;
	git_tree	*tree = NULL;
	unsigned char	*folded = NULL;
	size_t		 qlen;
	int		 rc, grc;

	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.o = opts;
	s.out = out;
	s.e = e;
	if (fold['A'] == 0)
		fold_init();
	if (ref == NULL || ref[0] == '\0')
		ref = "HEAD";
	qlen = opts->query != NULL ? strlen(opts->query) : 0;
	if (qlen == 0) {
		rc = err_set(e, ERR_INVALID, "query must not be empty");
		goto done;
	}
	if ((rc = repo_ref_check(ref, e)) != 0)
		goto done;
	if (opts->regex) {
		if ((rc = compile(&s, opts->query, e)) != 0)
			goto done;
	} else {
		if ((folded = malloc(qlen)) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		needle_init(&s.nd, folded, opts->query, qlen);
	}
	if ((rc = repo_open(c, &s.r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(s.r, &commit, ref, e)) != 0)
		goto done;
	git_oid_tostr(out->commit, sizeof out->commit, git_commit_id(commit));
	if (git_repository_odb(&s.odb, s.r) < 0 || git_commit_tree(&tree, commit) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the commit's tree");
		goto done;
	}
	grc = git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &s);
	if (s.rc != 0)
		rc = s.rc;
	else if (grc < 0 && !out->truncated)
		rc = repo_git_fail(e, ERR_GIT, "tree walk", "cannot read the commit's tree");
done:
	free(folded);
	pcre2_match_context_free(s.mctx);
	pcre2_jit_stack_free(s.jstack);
	pcre2_match_data_free(s.md);
	pcre2_code_free(s.re);
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

/* Matches one segment [p, pe) against the segment pattern [g, ge): '*', '?', [...]. */
static int
seg_match(const char *g, const char *ge, const char *p, const char *pe)
{
	const char	*star_g = NULL, *star_p = NULL;

	while (p < pe) {
		if (g < ge && *g == '*') {
			star_g = ++g;
			star_p = p;
			continue;
		}
		if (g < ge && *g == '[') {
			const char	*c = g + 1;
			int		 neg = 0, ok = 0;

			if (c < ge && (*c == '!' || *c == '^')) {
				neg = 1;
				c++;
			}
			while (c < ge && (*c != ']' || c == g + 1 + neg)) {
				if (c + 2 < ge && c[1] == '-' && c[2] != ']') {
					if (*p >= c[0] && *p <= c[2])
						ok = 1;
					c += 3;
				} else {
					if (*p == *c)
						ok = 1;
					c++;
				}
			}
			if (c < ge && ok != neg) {
				g = c + 1;
				p++;
				continue;
			}
		} else if (g < ge && (*g == '?' || *g == *p ||
		    (*g == '\\' && g + 1 < ge && g[1] == *p))) {
			g += *g == '\\' ? 2 : 1;
			p++;
			continue;
		}
		if (star_g == NULL)
			return 0;
		g = star_g;
		p = ++star_p;
	}
	while (g < ge && *g == '*')
		g++;
	return g == ge;
}

/* Matches segment lists: glob [g, ge) against path [p, pe), both '/'-separated. */
static int
path_match(const char *g, const char *ge, const char *p, const char *pe)
{
	const char	*gs, *ps;

	for (;;) {
		if (g == ge)
			return p == pe;
		gs = memchr(g, '/', (size_t)(ge - g));
		if (gs == NULL)
			gs = ge;
		if (gs - g == 2 && g[0] == '*' && g[1] == '*') {
			const char	*rest = gs < ge ? gs + 1 : ge;

			if (rest == ge)
				return 1;	/* trailing "**": everything below */
			for (ps = p; ; ps++) {	/* zero or more whole segments */
				if (path_match(rest, ge, ps, pe))
					return 1;
				ps = memchr(ps, '/', (size_t)(pe - ps));
				if (ps == NULL)
					return 0;
			}
		}
		if (p == pe)
			return 0;
		ps = memchr(p, '/', (size_t)(pe - p));
		if (ps == NULL)
			ps = pe;
		if (!seg_match(g, gs, p, ps))
			return 0;
		g = gs < ge ? gs + 1 : ge;
		p = ps < pe ? ps + 1 : pe;
		if ((g == ge) != (p == pe) && !(g < ge && ge - g == 2 && g[0] == '*' && g[1] == '*'))
			return 0;
	}
}

int
repo_glob_match(const char *glob, const char *path)
{
	const char	*base;

	if (strchr(glob, '/') == NULL) {
		base = strrchr(path, '/');
		base = base != NULL ? base + 1 : path;
		return seg_match(glob, glob + strlen(glob), base, base + strlen(base));
	}
	if (glob[0] == '/')
		glob++;
	return path_match(glob, glob + strlen(glob), path, path + strlen(path));
}
