/*
 * repo_wiki: the Markdown files of a branch's head, for the wiki's git
 * backend: every blob whose name ends in ".md", in git's tree order, with
 * its bytes.  Limits on the count and the size of each file and of all
 * are checked while walking, so a hostile repository cannot exhaust memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

struct wiki_walk {
	git_repository		*repo;
	struct repo_files	*out;
	size_t			 max_files, max_bytes, max_total, total;
	struct err		*e;
	int			 rc;
};

static int
wiki_walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct wiki_walk	*w = payload;
	struct repo_file	*f, *v;
	git_blob		*blob = NULL;
	git_odb			*odb = NULL;
	git_object_t		 type;
	const char		*name = git_tree_entry_name(entry);
	size_t			 n = strlen(name), size;
	int			 md;

	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
		return 0;
	md = n >= 4 && strcmp(name + n - 3, ".md") == 0;
	if (w->out->n >= w->max_files) {
		w->rc = err_set(w->e, ERR_TOOBIG, "more than %zu files", w->max_files);
		return -1;
	}
	if (!md) {
		/* another file: its name and size only (an attachment), never its bytes */
		if (git_repository_odb(&odb, w->repo) < 0 ||
		    git_odb_read_header(&size, &type, odb, git_tree_entry_id(entry)) < 0) {
			git_odb_free(odb);
			w->rc = repo_git_fail(w->e, ERR_GIT, "wiki", "cannot read a file");
			return -1;
		}
		git_odb_free(odb);
		if ((v = realloc(w->out->v, (w->out->n + 1) * sizeof *v)) == NULL) {
			w->rc = err_set(w->e, ERR_NOMEM, "out of memory");
			return -1;
		}
		w->out->v = v;
		f = &v[w->out->n];
		memset(f, 0, sizeof *f);
		if (asprintf(&f->path, "%s%s", root, name) < 0) {
			f->path = NULL;
			w->rc = err_set(w->e, ERR_NOMEM, "out of memory");
			return -1;
		}
		f->size = size;
		w->out->n++;
		return 0;
	}
	if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(entry)) < 0) {
		w->rc = repo_git_fail(w->e, ERR_GIT, "wiki", "cannot read a file");
		return -1;
	}
	size = (size_t)git_blob_rawsize(blob);
	if ((v = realloc(w->out->v, (w->out->n + 1) * sizeof *v)) == NULL) {
		git_blob_free(blob);
		w->rc = err_set(w->e, ERR_NOMEM, "out of memory");
		return -1;
	}
	w->out->v = v;
	f = &v[w->out->n];
	memset(f, 0, sizeof *f);
	if (asprintf(&f->path, "%s%s", root, name) < 0) {
		f->path = NULL;
		git_blob_free(blob);
		w->rc = err_set(w->e, ERR_NOMEM, "out of memory");
		return -1;
	}
	w->out->n++;
	f->size = size;
	if (size > w->max_bytes || w->total + size > w->max_total) {
		git_blob_free(blob);
		w->rc = err_set(w->e, ERR_TOOBIG, "%s: %zu bytes, more than %zu%s", f->path, size,
		    size > w->max_bytes ? w->max_bytes : w->max_total,
		    size > w->max_bytes ? " a page" : " in all");
		return -1;
	}
	w->total += size;
	if ((f->data = malloc(size + 1)) == NULL) {
		git_blob_free(blob);
		w->rc = err_set(w->e, ERR_NOMEM, "out of memory");
		return -1;
	}
	memcpy(f->data, git_blob_rawcontent(blob), size);
	f->data[size] = '\0';
	git_blob_free(blob);
	return 0;
}

int
repo_md_files(struct repo_cache *c, struct repo_files *out, const char *owner, const char *name,
    const char *branch, size_t max_files, size_t max_bytes, size_t max_total, struct err *e)
{
	struct wiki_walk	 w = { 0 };
	git_commit		*commit = NULL;
	git_tree		*tree = NULL;
	int			 rc;

	memset(out, 0, sizeof *out);
	if ((rc = repo_branch_check(branch, e)) != 0 ||
	    (rc = repo_open(c, &w.repo, owner, name, e)) != 0 ||
	    (rc = repo_ref_commit(w.repo, &commit, branch, e)) != 0)
		goto done;
	git_oid_tostr(out->commit, sizeof out->commit, git_commit_id(commit));
	if (git_commit_tree(&tree, commit) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "wiki", "cannot read the commit's tree");
		goto done;
	}
	w.out = out;
	w.max_files = max_files;
	w.max_bytes = max_bytes;
	w.max_total = max_total;
	w.e = e;
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, wiki_walk_cb, &w) < 0)
		rc = w.rc != 0 ? w.rc : repo_git_fail(e, ERR_GIT, "wiki", "cannot walk the tree");
done:
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

void
repo_files_release(struct repo_files *f)
{
	size_t	i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].path);
		free(f->v[i].data);
	}
	free(f->v);
	memset(f, 0, sizeof *f);
}
