/* repo_tree: the tree listing at a ref, and windows of a file's lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

/* ---- trees ---- */

static enum repo_entry_type
entry_type(git_filemode_t m)
{
	switch (m) {
	case GIT_FILEMODE_TREE:
		return REPO_ENTRY_TREE;
	case GIT_FILEMODE_COMMIT:
		return REPO_ENTRY_COMMIT;
	case GIT_FILEMODE_LINK:
		return REPO_ENTRY_SYMLINK;
	default:
		return REPO_ENTRY_BLOB;
	}
}

int
repo_tree_list(struct repo_cache *c, struct repo_tree *out, const char *owner, const char *name,
    const char *ref, const char *path, size_t offset, size_t limit, struct err *e)
{
	git_repository	*r;
	git_commit	*commit = NULL;
	git_tree	*root = NULL, *dir = NULL;
	git_tree_entry	*entry = NULL;
	git_odb		*odb = NULL;
	size_t		 i, k;
	int		 rc, grc;

	memset(out, 0, sizeof *out);
	if (ref == NULL || ref[0] == '\0')
		ref = "HEAD";
	if (path != NULL && path[0] == '\0')
		path = NULL;
	if ((rc = repo_ref_check(ref, e)) != 0)
		goto done;
	if (path != NULL && (rc = repo_path_check(path, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(r, &commit, ref, e)) != 0)
		goto done;
	git_oid_tostr(out->commit, sizeof out->commit, git_commit_id(commit));
	if (git_commit_tree(&root, commit) < 0 || git_repository_odb(&odb, r) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the commit's tree");
		goto done;
	}
	if (path != NULL) {
		grc = git_tree_entry_bypath(&entry, root, path);
		if (grc == GIT_ENOTFOUND) {
			rc = err_set(e, ERR_NOTFOUND, "path not found: %s@%s", path, ref);
			goto done;
		}
		if (grc < 0) {
			rc = repo_git_fail(e, ERR_GIT, "tree entry", "cannot read the tree");
			goto done;
		}
		if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) {
			rc = err_set(e, ERR_INVALID, "'%s' is not a directory at %s%s", path, ref,
			    git_tree_entry_type(entry) == GIT_OBJECT_BLOB ?
			    ": use get_file_contents to read a file" : "");
			goto done;
		}
		if (git_tree_lookup(&dir, r, git_tree_entry_id(entry)) < 0) {
			rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the tree");
			goto done;
		}
	}
	{
		git_tree	*t = dir != NULL ? dir : root;

		out->total = git_tree_entrycount(t);
		k = offset >= out->total ? 0 : out->total - offset;
		if (k > limit)
			k = limit;
		out->truncated = offset + k < out->total;
		if (k > 0 && (out->entries = calloc(k, sizeof *out->entries)) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		for (i = 0; i < k; i++) {
			const git_tree_entry	*te = git_tree_entry_byindex(t, offset + i);
			struct repo_entry	*x = &out->entries[i];
			git_object_t		 ot;
			size_t			 size;
			const char		*nm = git_tree_entry_name(te);

			out->n++;
			x->type = entry_type(git_tree_entry_filemode(te));
			x->mode = (unsigned)git_tree_entry_filemode(te);
			git_oid_tostr(x->id, sizeof x->id, git_tree_entry_id(te));
			if ((x->name = strdup(nm)) == NULL ||
			    (path != NULL ? asprintf(&x->path, "%s/%s", path, nm) < 0 :
			    (x->path = strdup(nm)) == NULL)) {
				x->path = NULL;
				rc = err_set(e, ERR_NOMEM, "out of memory");
				goto done;
			}
			if ((x->type == REPO_ENTRY_BLOB || x->type == REPO_ENTRY_SYMLINK) &&
			    git_odb_read_header(&size, &ot, odb, git_tree_entry_id(te)) == 0)
				x->size = size;
		}
	}
done:
	git_odb_free(odb);
	git_tree_free(dir);
	git_tree_entry_free(entry);
	git_tree_free(root);
	git_commit_free(commit);
	if (rc != 0)
		repo_tree_release(out);
	return rc;
}

void
repo_tree_release(struct repo_tree *t)
{
	size_t	 i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->entries[i].name);
		free(t->entries[i].path);
	}
	free(t->entries);
	t->entries = NULL;
	t->n = 0;
}

/* ---- line windows ---- */

int
repo_read_lines(struct repo_cache *c, struct repo_lines *out, const char *owner,
    const char *name, const char *ref, const char *path, size_t start, size_t max_lines,
    size_t max_bytes, struct err *e)
{
	git_repository	*r;
	git_commit	*commit = NULL;
	git_tree	*tree = NULL;
	git_tree_entry	*entry = NULL;
	git_blob	*blob = NULL;
	const char	*data, *end, *p, *from, *nl, *asked = ref != NULL ? ref : "HEAD";
	size_t		 n, line;
	int		 rc, grc;

	memset(out, 0, sizeof *out);
	if (ref == NULL || ref[0] == '\0')
		ref = "HEAD";
	if (start == 0)
		start = 1;
	if ((rc = repo_ref_check(ref, e)) != 0 || (rc = repo_path_check(path, e)) != 0)
		goto done;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		goto done;
	if ((rc = repo_ref_commit(r, &commit, ref, e)) != 0)
		goto done;
	git_oid_tostr(out->commit, sizeof out->commit, git_commit_id(commit));
	if (git_commit_tree(&tree, commit) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the commit's tree");
		goto done;
	}
	grc = git_tree_entry_bypath(&entry, tree, path);
	if (grc == GIT_ENOTFOUND) {
		/* get_file_contents shows this text as it is, capital and all */
		rc = err_set(e, ERR_NOTFOUND, "File not found: %s@%s", path, asked);
		goto done;
	}
	if (grc < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree entry", "cannot read the tree");
		goto done;
	}
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
		rc = err_set(e, ERR_INVALID, "'%s' is a %s at %s", path,
		    git_tree_entry_type(entry) == GIT_OBJECT_TREE ? "directory" : "submodule", ref);
		goto done;
	}
	if (git_blob_lookup(&blob, r, git_tree_entry_id(entry)) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "blob", "cannot read the file");
		goto done;
	}
	data = git_blob_rawcontent(blob);
	n = (size_t)git_blob_rawsize(blob);
	end = data + n;
	out->size = n;
	out->binary = git_blob_is_binary(blob);
	from = data;
	if (out->binary) {
		out->len = n > max_bytes ? max_bytes : n;
	} else {
		for (p = data, line = 0; p < end; line++) {
			if (line + 1 == start)
				from = p;
			nl = memchr(p, '\n', (size_t)(end - p));
			p = nl != NULL ? nl + 1 : end;
		}
		out->total_lines = line;
		if (start > line && line > 0) {
			rc = err_set(e, ERR_INVALID, "offset %zu is past the end of the file (%zu "
			    "lines)", start, line);
			goto done;
		}
		for (p = from, line = 0; p < end && line < max_lines; line++) {
			nl = memchr(p, '\n', (size_t)(end - p));
			nl = nl != NULL ? nl + 1 : end;
			if ((size_t)(nl - from) > max_bytes) {
				if (line == 0) {
					p = from + max_bytes;
					out->cut_line = 1;
					line++;
				}
				break;
			}
			p = nl;
		}
		out->len = (size_t)(p - from);
		if (line > 0) {
			out->start_line = start;
			out->end_line = start + line - 1;
		}
	}
	if ((out->data = malloc(out->len + 1)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	memcpy(out->data, from, out->len);
	out->data[out->len] = '\0';
done:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

void
repo_lines_release(struct repo_lines *l)
{
	if (l == NULL)
		return;
	free(l->data);
	l->data = NULL;
	l->len = 0;
}
