/* repo_blob: one file's bytes and blob id at a commit, for files the server itself reads (workflows). */
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

int
repo_blob_read(struct repo_cache *c, struct repo_blob *out, const char *owner, const char *name,
    const char *commit, const char *path, size_t max, struct err *e)
{
	git_repository	*r;
	git_commit	*cm = NULL;
	git_tree	*tree = NULL;
	git_tree_entry	*entry = NULL;
	git_blob	*blob = NULL;
	size_t		 n;
	int		 rc, grc;

	memset(out, 0, sizeof *out);
	if ((rc = repo_ref_check(commit, e)) != 0 || (rc = repo_path_check(path, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(r, &cm, commit, e)) != 0)
		goto done;
	if (git_commit_tree(&tree, cm) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the commit's tree");
		goto done;
	}
	grc = git_tree_entry_bypath(&entry, tree, path);
	if (grc == GIT_ENOTFOUND || (grc == 0 && git_tree_entry_type(entry) != GIT_OBJECT_BLOB)) {
		rc = err_set(e, ERR_NOTFOUND, "File not found: %s@%s", path, commit);
		goto done;
	}
	if (grc < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree entry", "cannot read the tree");
		goto done;
	}
	if (git_blob_lookup(&blob, r, git_tree_entry_id(entry)) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "blob", "cannot read the file");
		goto done;
	}
	git_oid_tostr(out->id, sizeof out->id, git_tree_entry_id(entry));
	n = (size_t)git_blob_rawsize(blob);
	out->size = n;
	if (n > max) {
		rc = err_set(e, ERR_TOOBIG, "%s has %zu bytes: at most %zu", path, n, max);
		goto done;
	}
	if ((out->data = malloc(n + 1)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	memcpy(out->data, git_blob_rawcontent(blob), n);
	out->data[n] = '\0';
	out->len = n;
done:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(cm);
	return rc;
}

void
repo_blob_release(struct repo_blob *b)
{
	if (b == NULL)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
}
