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
#include "hub/wiki-int.h"
#include "core_io.h"
#include "store/db.h"
#include "store/db_batches.h"
#include "store/db_wiki.h"
#include "store/repo.h"

struct wiki_git {
	struct wiki_copy	 c;
	size_t			*by_path;	/* indices of c.f in path order */
};

int
hub_wiki_repo_visible(struct db *db, uint64_t by, const char *owner, const char *name,
    char *why, size_t len)
{
	struct db_repo	 repo;
	struct err	 e;
	int		 rc;

	if (by == 0)
		return 0;
	err_clear(&e);
	memset(&repo, 0, sizeof repo);
	rc = db_repo_find_visible(db, &repo, by, owner, name, &e);
	db_repo_release(&repo);
	if (rc == 0)
		return 0;
	if (rc == ERR_NOTFOUND || rc == ERR_INVALID)
		snprintf(why, len, "репозиторий %s/%s больше не виден тому, кто задал корень вики: "
		    "копия не обновлена; задайте корень заново (root_set)", owner, name);
	else
		snprintf(why, len, "не проверить, виден ли репозиторий %s/%s: база недоступна, "
		    "повторите sync", owner, name);
	return -1;
}

/* qsort order of the pages' indices by path. */
static const struct wiki_git *wiki_sorting;

static int
wiki_cmp_path(const void *a, const void *b)
{
	return strcmp(wiki_sorting->c.f[*(const size_t *)a].name,
	    wiki_sorting->c.f[*(const size_t *)b].name);
}

/* The page whose file is path (n bytes) + ".md": its index, or WIKI_NONE. */
static size_t
wiki_by_path(const struct wiki_git *g, const char *path, size_t n)
{
	size_t	lo = 0, hi = g->c.n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strncmp(g->c.f[g->by_path[mid]].name, path, n)) == 0)
			c = strcmp(g->c.f[g->by_path[mid]].name + n, ".md");
		if (c == 0)
			return g->by_path[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return WIKI_NONE;
}

/* The folders' parent of page i: a/b/c.md's is a/b.md, else a.md (wiki_copy_link). */
static size_t
wiki_folder_parent(const struct wiki_copy *c, size_t i, void *arg)
{
	const struct wiki_git	*g = arg;
	const char		*path = c->f[i].name, *slash;
	size_t			 k, parent = WIKI_NONE;

	for (k = strlen(path); parent == WIKI_NONE && (slash = memrchr(path, '/', k)) != NULL;
	    k = (size_t)(slash - path))
		parent = wiki_by_path(g, path, (size_t)(slash - path));
	return parent;
}

/*
 * The files not *.md in a page's folder, as its attachments
 * (home/guide/scheme.png belongs to home/guide.md).  0, or -1.
 */
static int
wiki_git_atts(struct wiki_git *g, const struct repo_files *files, const char *src)
{
	const struct repo_file	*f;
	const char		*slash;
	size_t			 i, page;

	if ((g->c.a = calloc(files->n + 1, sizeof *g->c.a)) == NULL) {
		snprintf(g->c.why, sizeof g->c.why, "нехватка памяти");
		return -1;
	}
	for (i = 0; i < files->n; i++) {
		f = &files->v[i];
		if (f->data != NULL || (slash = strrchr(f->path, '/')) == NULL ||
		    (page = wiki_by_path(g, f->path, (size_t)(slash - f->path))) == WIKI_NONE)
			continue;
		if (asprintf(&g->c.a[g->c.n_a].source, "%s:%s", src, f->path) < 0) {
			g->c.a[g->c.n_a].source = NULL;
			snprintf(g->c.why, sizeof g->c.why, "нехватка памяти");
			return -1;
		}
		g->c.a[g->c.n_a].file = page;
		g->c.a[g->c.n_a].name = slash + 1;
		g->c.a[g->c.n_a].size = (uint64_t)f->size;
		g->c.n_a++;
	}
	return 0;
}

/*
 * Reads the wiki of root from the repositories under repo_root and checks
 * it into g->c (its pages and attachments ordered from the root) and
 * revision (the commit).  -1 with the reason in why.
 */
static int
wiki_git_read(const char *repo_root, const char *root_text, struct wiki_git *g,
    struct repo_files *files, char *revision, char *why, size_t len)
{
	struct repo_cache	*cache = NULL;
	struct wiki_file	*f;
	const char		*owner, *name, *branch, *code;
	char			*root = strdup(root_text), src[600];
	size_t			 i, r;
	struct err		 e;
	int			 rc = -1, k;

	err_clear(&e);
	if (root == NULL || hub_wiki_root_parse(root, &owner, &name, &branch, &code) != 0 ||
	    owner == NULL || strcmp(owner, HUB_WIKI_CONFLUENCE) == 0) {
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
	snprintf(src, sizeof src, "%s/%s@%s", owner, name, branch);
	if ((g->c.f = calloc(files->n + 1, sizeof *g->c.f)) == NULL) {
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
		f = &g->c.f[g->c.n];
		f->name = files->v[i].path;
		if ((k = hub_wiki_front(f, files->v[i].data, g->c.why, sizeof g->c.why)) != 0)
			g->c.n++;
		if (k < 0)
			goto fail;
		if (k == 0)
			continue;
		if (asprintf(&f->source, "%s:%s", src, f->name) < 0) {
			f->source = NULL;
			snprintf(why, len, "нехватка памяти");
			goto done;
		}
		if (wiki_copy_page(&g->c, g->c.n - 1) != 0)
			goto fail;
	}
	if ((g->by_path = calloc(g->c.n + 1, sizeof *g->by_path)) == NULL) {
		snprintf(why, len, "нехватка памяти");
		goto done;
	}
	for (i = 0; i < g->c.n; i++)
		g->by_path[i] = i;
	wiki_sorting = g;
	qsort(g->by_path, g->c.n, sizeof *g->by_path, wiki_cmp_path);
	wiki_sorting = NULL;
	if (wiki_copy_link(&g->c, wiki_folder_parent, g) != 0)
		goto fail;
	if ((r = wiki_copy_find(&g->c, code)) == WIKI_NONE) {
		snprintf(why, len, "страницы %s (корень вики) нет в %s/%s@%s", code, owner, name,
		    branch);
		goto done;
	}
	if (wiki_git_atts(g, files, src) != 0 || wiki_copy_order(&g->c, r) != 0)
		goto fail;
	snprintf(revision, 41, "%s", files->commit);
	rc = 0;
	goto done;
fail:
	snprintf(why, len, "%s", g->c.why);
done:
	repo_cache_free(cache);
	free(root);
	return rc;
}

void
hub_wiki_git(struct db *db, const struct config *cfg, uint64_t id, uint64_t handout,
    struct core_response *resp)
{
	struct json_object	*cmd = NULL;
	struct repo_files	 files = { 0 };
	struct wiki_git		 g;
	char			*root = NULL, why[700] = "", copy[512];
	char			 revision[41] = "";
	const char		*label, *type, *owner, *name, *branch, *code;
	uint64_t		 by = 0;
	struct err		 e;
	int			 rc;

	memset(&g, 0, sizeof g);
	err_clear(&e);
	if (hub_wiki_command(db, id, &cmd, &label, &type, resp) != 0)
		goto done;
	if (type != NULL && strcmp(type, "wiki_fetch") == 0) {
		hub_wiki_git_fetch(db, cfg, id, handout, resp);
		goto done;
	}
	if (label == NULL || type == NULL || strcmp(type, "wiki_sync") != 0) {
		hub_refuse_msg(resp, 422, "бэкенд git выполняет только wiki_sync и wiki_fetch");
		goto done;
	}
	if ((rc = wiki_root_get(db, label, &root, &by, &e)) != 0) {
		hub_failed(resp, rc, &e);
		goto done;
	}
	if (root == NULL)
		snprintf(why, sizeof why, "у проекта %s нет корня вики", label);
	else if (snprintf(copy, sizeof copy, "%s", root) < (int)sizeof copy &&
	    hub_wiki_root_parse(copy, &owner, &name, &branch, &code) == 0 && owner != NULL &&
	    strcmp(owner, HUB_WIKI_CONFLUENCE) != 0 &&
	    hub_wiki_repo_visible(db, by, owner, name, why, sizeof why) != 0)
		;	/* why says it */
	else
		(void)wiki_git_read(cfg->repo_root, root, &g, &files, revision, why, sizeof why);
	wiki_copy_finish(db, resp, id, handout, HUB_ASK_RUN, label, root, revision, &g.c,
	    why[0] != '\0' ? why : NULL);
done:
	wiki_copy_free(&g.c);
	free(g.by_path);
	repo_files_release(&files);
	free(root);
	json_object_put(cmd);
}
