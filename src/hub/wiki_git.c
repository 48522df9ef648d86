/*
 * wiki_git: the wiki's git backend: a wiki_sync command makes the pages of
 * a forge repository's branch head the project's copy.  A page is a file
 * *.md that opens with front matter ("---" lines around "code: DOC-2",
 * "title: ...", and optionally "parent: DOC-1"); files without front
 * matter are not pages.  Folders give the tree: the parent of a/b/c.md is
 * the page a/b.md, else a.md, unless "parent:" names one.  The copy is
 * the root page and everything under it; it is checked whole (codes,
 * parents, cycles, depth, UTF-8) before one transaction replaces the old
 * copy, and a failure leaves the old copy and says why in the sync run.
 * The forge's repositories live with the hub, and a page may be larger
 * than a request body, so the hub reads them itself when the agent asks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "buf.h"
#include "hub/api-int.h"
#include "hub/wiki.h"
#include "core_io.h"
#include "store/db_batches.h"
#include "store/db_wiki.h"
#include "store/repo.h"

#define WIKI_FILES_MAX		20000
#define WIKI_PAGE_BYTES_MAX	(4u << 20)	/* one page's Markdown */
#define WIKI_TOTAL_BYTES_MAX	(256u << 20)	/* all of them */
#define WIKI_TITLE_MAX		500		/* characters */
#define WIKI_NONE		((size_t)-1)
#define WIKI_SOURCE_MAX		1000		/* characters of an address (the column's) */
#define WIKI_NAME_MAX		255		/* characters of an attachment's name */

struct wiki_file {
	const char	*path;		/* borrowed from the repo_files */
	char		*code, *title, *parent_code;
	const char	*body;
	size_t		 parent;	/* WIKI_NONE: none */
	size_t		 k;		/* its place among the pages loaded; WIKI_NONE: not loaded */
	int		 mark;		/* cycle check: 0 new, 1 on the walk, 2 done */
};

struct wiki_git {
	struct wiki_file	*f;
	size_t			 n;
	size_t			*by_path, *by_code;	/* indices in path, in code order */
	char			 why[600];
};

/* A front matter value: spaces trimmed, one pair of quotes removed; a new string. */
static char *
wiki_value(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0])
		s++, n -= 2;
	return strndup(s, n);
}

/*
 * Reads the front matter of data into f: 1 a page, 0 not one (no front
 * matter), -1 with the reason in g->why.
 */
static int
wiki_front(struct wiki_git *g, struct wiki_file *f, const char *data)
{
	const char	*p, *eol, *colon;
	char		**slot;

	if (strncmp(data, "---\n", 4) != 0 && strncmp(data, "---\r\n", 5) != 0)
		return 0;
	for (p = strchr(data, '\n') + 1; *p != '\0'; p = eol + 1) {
		eol = strchr(p, '\n');
		if (strncmp(p, "---", 3) == 0 && (p[3] == '\n' || p[3] == '\r' || p[3] == '\0')) {
			/* the closing line; the last of the file when nothing follows */
			f->body = eol != NULL ? eol + 1 : p + 3 + (p[3] == '\r');
			break;
		}
		if (eol == NULL)
			break;
		if ((colon = memchr(p, ':', (size_t)(eol - p))) == NULL)
			continue;
		slot = (colon - p == 4 && strncmp(p, "code", 4) == 0) ? &f->code :
		    (colon - p == 5 && strncmp(p, "title", 5) == 0) ? &f->title :
		    (colon - p == 6 && strncmp(p, "parent", 6) == 0) ? &f->parent_code : NULL;
		if (slot == NULL)
			continue;
		free(*slot);
		if ((*slot = wiki_value(colon + 1, (size_t)(eol - colon - 1))) == NULL) {
			snprintf(g->why, sizeof g->why, "нехватка памяти");
			return -1;
		}
	}
	if (f->body == NULL) {
		snprintf(g->why, sizeof g->why, "%s: front matter не закрыта строкой ---", f->path);
		return -1;
	}
	if (f->code == NULL || !hub_wiki_code_ok(f->code)) {
		snprintf(g->why, sizeof g->why, "%s: в front matter нет кода страницы (code: DOC-1)%s%s",
		    f->path, f->code != NULL ? " или он не такой: " : "", f->code != NULL ? f->code : "");
		return -1;
	}
	if (f->parent_code != NULL && f->parent_code[0] != '\0' && !hub_wiki_code_ok(f->parent_code)) {
		snprintf(g->why, sizeof g->why, "%s: parent %s — не код страницы", f->path,
		    f->parent_code);
		return -1;
	}
	if (f->title == NULL || f->title[0] == '\0') {
		free(f->title);
		f->title = strndup(strrchr(f->path, '/') != NULL ? strrchr(f->path, '/') + 1 : f->path,
		    strlen(strrchr(f->path, '/') != NULL ? strrchr(f->path, '/') + 1 : f->path) - 3);
	}
	if (f->title == NULL || hub_wiki_chars(f->title) > WIKI_TITLE_MAX) {
		snprintf(g->why, sizeof g->why, "%s: название длиннее %d символов", f->path,
		    WIKI_TITLE_MAX);
		return -1;
	}
	return 1;
}

/* qsort and bsearch orders of the pages' indices: by path, by code. */
static const struct wiki_git *wiki_sorting;

static int
wiki_cmp_path(const void *a, const void *b)
{
	return strcmp(wiki_sorting->f[*(const size_t *)a].path,
	    wiki_sorting->f[*(const size_t *)b].path);
}

static int
wiki_cmp_code(const void *a, const void *b)
{
	const size_t	*x = a, *y = b;
	int		 c = strcmp(wiki_sorting->f[*x].code, wiki_sorting->f[*y].code);

	return c != 0 ? c : (*x > *y) - (*x < *y);
}

/* Sorts the indices by path and by code (g->by_path, g->by_code); -1 when out of memory. */
static int
wiki_index(struct wiki_git *g)
{
	size_t	i;

	if ((g->by_path = calloc(g->n + 1, sizeof *g->by_path)) == NULL ||
	    (g->by_code = calloc(g->n + 1, sizeof *g->by_code)) == NULL)
		return -1;
	for (i = 0; i < g->n; i++)
		g->by_path[i] = g->by_code[i] = i;
	wiki_sorting = g;
	qsort(g->by_path, g->n, sizeof *g->by_path, wiki_cmp_path);
	qsort(g->by_code, g->n, sizeof *g->by_code, wiki_cmp_code);
	wiki_sorting = NULL;
	return 0;
}

/* The page whose file is path (n bytes) + ".md": its index, or WIKI_NONE. */
static size_t
wiki_by_path(const struct wiki_git *g, const char *path, size_t n)
{
	size_t	lo = 0, hi = g->n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strncmp(g->f[g->by_path[mid]].path, path, n)) == 0)
			c = strcmp(g->f[g->by_path[mid]].path + n, ".md");
		if (c == 0)
			return g->by_path[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return WIKI_NONE;
}

/* The page of code: its index, or WIKI_NONE. */
static size_t
wiki_by_code(const struct wiki_git *g, const char *code)
{
	size_t	lo = 0, hi = g->n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(g->f[g->by_code[mid]].code, code)) == 0)
			return g->by_code[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return WIKI_NONE;
}

/* Codes unique, parents found, no cycles: 0, or -1 with g->why. */
static int
wiki_link(struct wiki_git *g)
{
	struct wiki_file	*f;
	size_t			 i, j, k;
	const char		*slash;

	if (wiki_index(g) != 0) {
		snprintf(g->why, sizeof g->why, "нехватка памяти");
		return -1;
	}
	/* equal codes sort together, the earlier file first */
	for (k = 1; k < g->n; k++)
		if (strcmp(g->f[g->by_code[k - 1]].code, g->f[g->by_code[k]].code) == 0) {
			snprintf(g->why, sizeof g->why, "код %s у двух страниц: %s и %s",
			    g->f[g->by_code[k]].code, g->f[g->by_code[k - 1]].path,
			    g->f[g->by_code[k]].path);
			return -1;
		}
	for (i = 0; i < g->n; i++) {
		f = &g->f[i];
		f->parent = WIKI_NONE;
		if (f->parent_code != NULL && f->parent_code[0] != '\0') {
			if ((f->parent = wiki_by_code(g, f->parent_code)) == WIKI_NONE) {
				snprintf(g->why, sizeof g->why, "%s: родителя %s нет среди страниц",
				    f->path, f->parent_code);
				return -1;
			}
			continue;
		}
		for (k = strlen(f->path); f->parent == WIKI_NONE &&
		    (slash = memrchr(f->path, '/', k)) != NULL; k = (size_t)(slash - f->path))
			f->parent = wiki_by_path(g, f->path, (size_t)(slash - f->path));
	}
	for (i = 0; i < g->n; i++) {
		for (j = i; j != WIKI_NONE && g->f[j].mark == 0; j = g->f[j].parent)
			g->f[j].mark = 1;
		if (j != WIKI_NONE && g->f[j].mark == 1) {
			snprintf(g->why, sizeof g->why, "страницы образуют цикл родителей: %s (%s) — "
			    "её предок она сама", g->f[j].code, g->f[j].path);
			return -1;
		}
		for (j = i; j != WIKI_NONE && g->f[j].mark == 1; j = g->f[j].parent)
			g->f[j].mark = 2;
	}
	return 0;
}

/*
 * The root's subtree in pre-order into *out (n pages), the strings in
 * store (freed by the caller): 0, or -1 with g->why.
 */
static int
wiki_order(struct wiki_git *g, size_t root, const char *src, struct wiki_page_in **out,
    size_t *n, char ***store)
{
	struct wiki_page_in	*p;
	size_t			*stack, *at, *first, *next, top = 0, i, j, k;
	char			**s;
	struct buf		 b;

	*out = p = calloc(g->n, sizeof *p);
	*store = s = calloc(2 * g->n + 1, sizeof *s);
	stack = calloc(g->n + 1, sizeof *stack);
	at = calloc(g->n + 1, sizeof *at);
	first = calloc(g->n + 1, sizeof *first);
	next = calloc(g->n + 1, sizeof *next);
	*n = 0;
	if (p == NULL || s == NULL || stack == NULL || at == NULL || first == NULL ||
	    next == NULL) {
		snprintf(g->why, sizeof g->why, "нехватка памяти");
		goto fail;
	}
	/* each page's children, the last in git's order first */
	for (i = 0; i < g->n; i++)
		first[i] = g->f[i].k = WIKI_NONE;
	for (i = 0; i < g->n; i++)
		if (g->f[i].parent != WIKI_NONE && i != root) {
			next[i] = first[g->f[i].parent];
			first[g->f[i].parent] = i;
		}
	stack[top++] = root;
	while (top > 0) {
		i = stack[--top];
		k = (*n)++;
		at[i] = k;
		g->f[i].k = k;
		p[k].code = g->f[i].code;
		p[k].title = g->f[i].title;
		p[k].body = g->f[i].body;
		p[k].chars = hub_wiki_chars(g->f[i].body);
		p[k].parent = i == root ? k : at[g->f[i].parent];
		p[k].depth = i == root ? 0 : p[p[k].parent].depth + 1;
		if (p[k].depth > WIKI_TREE_DEPTH_MAX) {
			snprintf(g->why, sizeof g->why, "%s: глубже %d уровней от корня", g->f[i].path,
			    WIKI_TREE_DEPTH_MAX);
			goto fail;
		}
		buf_init(&b);
		if (i != root)
			buf_printf(&b, "%s / ", p[p[k].parent].path);
		buf_puts(&b, g->f[i].title);
		s[2 * k] = b.data;
		p[k].path = b.data != NULL ? b.data : "";
		if (asprintf(&s[2 * k + 1], "%s:%s", src, g->f[i].path) < 0)
			s[2 * k + 1] = NULL;
		p[k].source = s[2 * k + 1] != NULL ? s[2 * k + 1] : "";
		if (hub_wiki_chars(p[k].source) > WIKI_SOURCE_MAX) {
			snprintf(g->why, sizeof g->why, "%.*s…: путь длиннее %d символов",
			    hub_utf8_prefix(g->f[i].path, 200), g->f[i].path, WIKI_SOURCE_MAX);
			goto fail;
		}
		/* children pushed last first, so they come out in git's order */
		for (j = first[i]; j != WIKI_NONE; j = next[j])
			stack[top++] = j;
	}
	/* ord_end: the last place of each subtree, from the end back */
	for (k = *n; k-- > 0;)
		p[k].ord_end = (unsigned)(p[k].ord_end > k ? p[k].ord_end : k);
	for (k = *n; k-- > 1;)
		if (p[p[k].parent].ord_end < p[k].ord_end)
			p[p[k].parent].ord_end = p[k].ord_end;
	free(stack);
	free(at);
	free(first);
	free(next);
	return 0;
fail:
	free(stack);
	free(at);
	free(first);
	free(next);
	return -1;
}

/*
 * The attachments of the pages loaded: each file not *.md in a page's
 * folder (home/guide/scheme.png belongs to home/guide.md), with its
 * address in the store (freed by the caller).  0, or -1 with g->why.
 */
static int
wiki_attachments(struct wiki_git *g, const struct repo_files *files, const char *src,
    struct wiki_attachment_in **out, size_t *n, char ***store)
{
	const struct repo_file	*f;
	const char		*slash;
	size_t			 i, page;

	*n = 0;
	if ((*out = calloc(files->n + 1, sizeof **out)) == NULL ||
	    (*store = calloc(files->n + 1, sizeof **store)) == NULL) {
		snprintf(g->why, sizeof g->why, "нехватка памяти");
		return -1;
	}
	for (i = 0; i < files->n; i++) {
		f = &files->v[i];
		if (f->data != NULL || (slash = strrchr(f->path, '/')) == NULL ||
		    (page = wiki_by_path(g, f->path, (size_t)(slash - f->path))) == WIKI_NONE ||
		    g->f[page].k == WIKI_NONE)
			continue;
		if (!hub_wiki_utf8_ok(slash + 1, strlen(slash + 1)) ||
		    hub_wiki_chars(slash + 1) > WIKI_NAME_MAX) {
			snprintf(g->why, sizeof g->why, "%.*s: имя вложения — не UTF-8 или длиннее %d "
			    "символов", hub_utf8_prefix(f->path, 300), f->path, WIKI_NAME_MAX);
			return -1;
		}
		if (asprintf(&(*store)[*n], "%s:%s", src, f->path) < 0) {
			(*store)[*n] = NULL;
			snprintf(g->why, sizeof g->why, "нехватка памяти");
			return -1;
		}
		if (hub_wiki_chars((*store)[*n]) > WIKI_SOURCE_MAX) {
			snprintf(g->why, sizeof g->why, "%.*s…: путь длиннее %d символов",
			    hub_utf8_prefix(f->path, 200), f->path, WIKI_SOURCE_MAX);
			(*n)++;
			return -1;
		}
		(*out)[*n].page = g->f[page].k;
		(*out)[*n].name = slash + 1;
		(*out)[*n].size = (uint64_t)f->size;
		(*out)[*n].mime = hub_wiki_mime(slash + 1);
		(*out)[*n].source = (*store)[*n];
		(*n)++;
	}
	return 0;
}

static void
wiki_git_free(struct wiki_git *g)
{
	size_t	i;

	for (i = 0; i < g->n; i++) {
		free(g->f[i].code);
		free(g->f[i].title);
		free(g->f[i].parent_code);
	}
	free(g->f);
	free(g->by_path);
	free(g->by_code);
}

/*
 * Reads the wiki of root from the repositories under repo_root and checks
 * it; on success *pages (n, the strings in *store) is the root's subtree
 * and revision the commit.  -1 with the reason in why.
 */
static int
wiki_git_read(const char *repo_root, const char *root_text, struct wiki_git *g,
    struct wiki_page_in **pages, size_t *n, char ***store, struct wiki_attachment_in **atts,
    size_t *n_atts, char ***att_store, struct repo_files *files, char *revision, char *why,
    size_t len)
{
	struct repo_cache	*cache = NULL;
	const char		*owner, *name, *branch, *code;
	char			*root = strdup(root_text), src[600];
	size_t			 i, r;
	struct err		 e;
	int			 rc = -1, k;

	err_clear(&e);
	if (root == NULL || hub_wiki_root_parse(root, &owner, &name, &branch, &code) != 0 ||
	    owner == NULL) {
		snprintf(why, len, "корень вики %s не называет репозиторий: бэкенду git нужен корень "
		    "<владелец>/<репозиторий>[@<ветка>]:<код>, например docs/wiki@main:DOC-1",
		    root_text);
		goto done;
	}
	if (repo_cache_new(&cache, repo_root != NULL ? repo_root : "", &e) != 0 ||
	    (rc = repo_md_files(cache, files, owner, name, branch, WIKI_FILES_MAX,
	    WIKI_PAGE_BYTES_MAX, WIKI_TOTAL_BYTES_MAX, &e)) != 0) {
		if (rc == ERR_TOOBIG)
			snprintf(why, len, "%s/%s@%s: слишком велико: %s", owner, name, branch, e.msg);
		else if (rc == ERR_NOTFOUND || rc == ERR_INVALID || rc == ERR_GIT)
			snprintf(why, len, "репозиторий %s/%s, ветка %s: не прочитать (%s)", owner,
			    name, branch, rc == ERR_GIT ? "нет такого репозитория" : e.msg);
		else
			snprintf(why, len, "репозиторий %s/%s не прочитать", owner, name);
		log_info("hub: wiki %s: %s", root_text, e.msg);
		rc = -1;
		goto done;
	}
	rc = -1;
	if ((g->f = calloc(files->n + 1, sizeof *g->f)) == NULL) {
		snprintf(why, len, "нехватка памяти");
		goto done;
	}
	for (i = 0; i < files->n; i++) {
		if (files->v[i].data == NULL)
			continue;	/* not *.md: an attachment, perhaps */
		if (!hub_wiki_utf8_ok(files->v[i].data, files->v[i].size)) {
			snprintf(why, len, "%s: не UTF-8 (или нулевой байт)", files->v[i].path);
			goto done;
		}
		g->f[g->n].path = files->v[i].path;
		if ((k = wiki_front(g, &g->f[g->n], files->v[i].data)) != 0)
			g->n++;
		if (k < 0)
			goto fail;
	}
	if (wiki_link(g) != 0)
		goto fail;
	if ((r = wiki_by_code(g, code)) == WIKI_NONE) {
		snprintf(why, len, "страницы %s (корень вики) нет в %s/%s@%s", code, owner, name,
		    branch);
		goto done;
	}
	snprintf(src, sizeof src, "%s/%s@%s", owner, name, branch);
	if (wiki_order(g, r, src, pages, n, store) != 0 ||
	    wiki_attachments(g, files, src, atts, n_atts, att_store) != 0)
		goto fail;
	snprintf(revision, 41, "%s", files->commit);
	rc = 0;
	goto done;
fail:
	snprintf(why, len, "%s", g->why);
done:
	repo_cache_free(cache);
	free(root);
	return rc;
}

/* The answer to the agent: {command, state, error, pages}. */
static void
wiki_git_answer(struct core_response *resp, uint64_t id, const char *error, size_t pages)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "state", json_object_new_string(error == NULL ? "done" :
	    "failed"));
	json_object_object_add(o, "error", error != NULL ? json_object_new_string(error) : NULL);
	json_object_object_add(o, "pages", json_object_new_uint64(pages));
	core_response_json(resp, 200, o);
}

void
hub_wiki_git(struct db *db, const struct config *cfg, uint64_t id, struct core_response *resp)
{
	struct json_object	*cmd = NULL;
	struct wiki_page_in	*pages = NULL;
	struct wiki_attachment_in *atts = NULL;
	struct repo_files	 files = { 0 };
	struct wiki_git		 g = { 0 };
	char			**store = NULL, **att_store = NULL, *root = NULL, why[700] = "";
	char			 state[32] = "";
	char			 revision[41] = "";
	const char		*label, *type;
	size_t			 n = 0, n_atts = 0, i;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if ((rc = tracker_command_get(db, &cmd, id, &e)) == ERR_NOTFOUND) {
		hub_agent_not_claimed(resp, id, "");
		goto done;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		goto done;
	}
	label = json_object_get_string(json_object_object_get(cmd, "project"));
	type = json_object_get_string(json_object_object_get(json_object_object_get(cmd,
	    "command"), "type"));
	if (type != NULL && strcmp(type, "wiki_fetch") == 0) {
		hub_wiki_git_fetch(db, cfg, id, resp);
		goto done;
	}
	if (label == NULL || type == NULL || strcmp(type, "wiki_sync") != 0) {
		hub_refuse_msg(resp, 422, "бэкенд git выполняет только wiki_sync и wiki_fetch");
		goto done;
	}
	if ((rc = wiki_root_get(db, label, &root, &e)) != 0) {
		hub_failed(resp, rc, &e);
		goto done;
	}
	if (root == NULL)
		snprintf(why, sizeof why, "у проекта %s нет корня вики", label);
	else if (wiki_git_read(cfg->repo_root, root, &g, &pages, &n, &store, &atts, &n_atts,
	    &att_store, &files, revision, why, sizeof why) == 0)
		rc = wiki_load(db, id, label, root, revision, pages, n, atts, n_atts, state,
		    sizeof state, &e);
	if (rc == ERR_CONFLICT)
		snprintf(why, sizeof why, "копия изменилась во время синхронизации (сменился "
		    "корень вики или запись столкнулась с другой); ничего не записано, повторите sync");
	if (why[0] != '\0') {
		n = 0;
		rc = wiki_sync_failed(db, id, label, root, why, state, sizeof state, &e);
	}
	if (rc == ERR_INVALID)
		hub_agent_not_claimed(resp, id, state);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else {
		log_info("hub: wiki sync of %s (command %llu): %s", label, (unsigned long long)id,
		    why[0] != '\0' ? why : "done");
		wiki_git_answer(resp, id, why[0] != '\0' ? why : NULL, n);
	}
done:
	for (i = 0; store != NULL && i < 2 * g.n + 1; i++)
		free(store[i]);
	free(store);
	for (i = 0; att_store != NULL && i < files.n + 1; i++)
		free(att_store[i]);
	free(att_store);
	free(atts);
	free(pages);
	wiki_git_free(&g);
	repo_files_release(&files);
	free(root);
	json_object_put(cmd);
}
