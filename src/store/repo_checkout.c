/* repo_checkout: a commit's files written to a plain directory, and blobs by id, for the CI runner. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <git2.h>

#include "err.h"
#include "store/repo.h"
#include "store/repo-internal.h"

struct checkout {
	git_repository	*r;
	int		 dirfd;		/* the target directory */
	struct err	*e;
	int		 rc;
};

/* Writes one blob at path (relative to c->dirfd), executable when mode says so. */
static int
checkout_blob(struct checkout *c, const char *path, const git_tree_entry *te)
{
	git_blob	*blob = NULL;
	const char	*p;
	size_t		 n, off = 0;
	ssize_t		 w;
	int		 fd = -1, mode;

	if (git_blob_lookup(&blob, c->r, git_tree_entry_id(te)) < 0)
		return repo_git_fail(c->e, ERR_GIT, "blob", "cannot read a file of the commit");
	p = git_blob_rawcontent(blob);
	n = (size_t)git_blob_rawsize(blob);
	mode = git_tree_entry_filemode(te);
	if (mode == GIT_FILEMODE_LINK) {
		char	*target = strndup(p, n);

		/* A link is written as a link: nothing is read or written through it. */
		if (target == NULL || symlinkat(target, c->dirfd, path) != 0) {
			free(target);
			git_blob_free(blob);
			return err_set(c->e, ERR_INTERNAL, "cannot write %s: %s", path,
			    strerror(errno));
		}
		free(target);
		git_blob_free(blob);
		return 0;
	}
	fd = openat(c->dirfd, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
	while (fd >= 0 && off < n) {
		if ((w = write(fd, p + off, n - off)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)w;
	}
	git_blob_free(blob);
	if (fd < 0 || off < n || close(fd) != 0) {
		int saved = errno;

		if (fd >= 0 && off < n)
			close(fd);
		return err_set(c->e, ERR_INTERNAL, "cannot write %s: %s", path, strerror(saved));
	}
	return 0;
}

static int
checkout_cb(const char *root, const git_tree_entry *te, void *arg)
{
	struct checkout	*c = arg;
	char		 path[REPO_PATH_MAX];
	int		 n;

	n = snprintf(path, sizeof path, "%s%s", root, git_tree_entry_name(te));
	if (n < 0 || (size_t)n >= sizeof path) {
		c->rc = err_set(c->e, ERR_TOOBIG, "a path of the commit is too long");
		return -1;
	}
	switch (git_tree_entry_type(te)) {
	case GIT_OBJECT_TREE:
		if (mkdirat(c->dirfd, path, 0755) != 0) {
			c->rc = err_set(c->e, ERR_INTERNAL, "cannot create %s: %s", path,
			    strerror(errno));
			return -1;
		}
		return 0;
	case GIT_OBJECT_BLOB:
		if ((c->rc = checkout_blob(c, path, te)) != 0)
			return -1;
		return 0;
	default:
		/* A submodule's commit: there is nothing of it here to write. */
		return 1;
	}
}

int
repo_checkout(struct repo_cache *rc_, const char *owner, const char *name, const char *commit,
    const char *dir, struct err *e)
{
	struct checkout	 c;
	git_commit	*cm = NULL;
	git_tree	*tree = NULL;
	int		 rc;

	memset(&c, 0, sizeof c);
	c.e = e;
	c.dirfd = -1;
	if ((rc = repo_ref_check(commit, e)) != 0 || (rc = repo_open(rc_, &c.r, owner, name,
	    e)) != 0)
		return rc;
	if ((rc = repo_ref_commit(c.r, &cm, commit, e)) != 0)
		return rc;
	if (git_commit_tree(&tree, cm) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "tree", "cannot read the commit's tree");
		goto done;
	}
	if ((c.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = err_set(e, ERR_INTERNAL, "cannot open %s: %s", dir, strerror(errno));
		goto done;
	}
	/* Pre-order: a directory is made before the files in it. */
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, checkout_cb, &c) != 0 && c.rc == 0)
		c.rc = repo_git_fail(e, ERR_GIT, "tree walk", "cannot read the commit's tree");
	rc = c.rc;
done:
	if (c.dirfd >= 0)
		close(c.dirfd);
	git_tree_free(tree);
	git_commit_free(cm);
	return rc;
}

int
repo_blob_by_id(struct repo_cache *c, struct repo_blob *out, const char *owner,
    const char *name, const char *id, size_t max, struct err *e)
{
	git_repository	*r;
	git_blob	*blob = NULL;
	git_oid		 oid;
	size_t		 n;
	int		 rc;

	memset(out, 0, sizeof *out);
	if (strlen(id) != 40 || git_oid_fromstr(&oid, id) < 0)
		return err_set(e, ERR_INVALID, "'%.40s' is not a blob id", id);
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if (git_blob_lookup(&blob, r, &oid) < 0)
		return err_set(e, ERR_NOTFOUND, "blob %s not found", id);
	snprintf(out->id, sizeof out->id, "%s", id);
	n = (size_t)git_blob_rawsize(blob);
	out->size = n;
	if (n > max)
		rc = err_set(e, ERR_TOOBIG, "blob %s has %zu bytes: at most %zu", id, n, max);
	else if ((out->data = malloc(n + 1)) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	else {
		memcpy(out->data, git_blob_rawcontent(blob), n);
		out->data[n] = '\0';
		out->len = n;
	}
	git_blob_free(blob);
	return rc;
}
