/* repo_admin: creating, importing and removing bare repositories under the root (the command line's repo commands). */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <git2.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "store/repo.h"
#include "store/repo-internal.h"

/* Makes <root>/<owner> and checks <root>/<owner>/<name>.git is free; *path receives the latter. */
static int
prepare_dir(char **path, const char *root, const char *owner, const char *name, struct err *e)
{
	char		*dir = NULL;
	struct stat	 st;
	int		 rc = 0, save;

	*path = NULL;
	if ((rc = repo_names_check(owner, name, e)) != 0)
		return rc;
	if (root == NULL || root[0] == '\0')
		return err_set(e, ERR_CONFIG, "repo_root is not set: set repo_root in the "
		    "configuration file " CONFIG_REPO_ROOT_FIX);
	if (asprintf(&dir, "%s/%s", root, owner) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (mkdir(dir, 0755) != 0 && (save = errno) != EEXIST) {
		log_error("mkdir %s: %s", dir, strerror(save));
		rc = err_set(e, ERR_IO, "cannot create the owner's directory %s: %s (repo_root %s "
		    "must be a directory owned by the user forgemcp runs as, and this command "
		    "run as that user)", dir, strerror(save), root);
		goto done;
	}
	if ((*path = repo_path(root, owner, name)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (lstat(*path, &st) == 0) {
		rc = err_set(e, ERR_EXISTS, "a repository directory for '%s/%s' already exists",
		    owner, name);
		free(*path);
		*path = NULL;
	}
done:
	free(dir);
	return rc;
}

static int
init_bare(git_repository **out, const char *path, const char *branch, struct err *e)
{
	git_repository_init_options	 opts;

	if (git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION) < 0)
		return repo_git_fail(e, ERR_GIT, "init options", "cannot create the repository");
	opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_NO_REINIT |
	    GIT_REPOSITORY_INIT_MKDIR;
	opts.mode = GIT_REPOSITORY_INIT_SHARED_UMASK;
	opts.initial_head = branch;
	if (git_repository_init_ext(out, path, &opts) < 0)
		return repo_git_fail(e, ERR_GIT, "init", "cannot create the repository");
	return 0;
}

int
repo_create(const char *root, const char *owner, const char *name, const char *branch,
    struct err *e)
{
	git_repository	*r = NULL;
	char		*path = NULL;
	struct err	 ignore;
	int		 rc;

	if ((rc = repo_branch_check(branch, e)) != 0)
		goto done;
	if ((rc = prepare_dir(&path, root, owner, name, e)) != 0)
		goto done;
	if ((rc = init_bare(&r, path, branch, e)) != 0) {
		err_clear(&ignore);
		repo_remove(root, owner, name, &ignore);
	}
done:
	git_repository_free(r);
	free(path);
	return rc;
}

/* The branch a HEAD reference points at, into out; ERR_NOTFOUND when detached. */
static int
head_branch_of(git_repository *r, char *out, size_t len, struct err *e)
{
	git_reference	*head = NULL;
	const char	*target;
	int		 rc = 0;

	if (git_reference_lookup(&head, r, "HEAD") < 0) {
		rc = repo_git_fail(e, ERR_GIT, "HEAD", "cannot read HEAD");
		goto done;
	}
	if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC ||
	    (target = git_reference_symbolic_target(head)) == NULL ||
	    strncmp(target, "refs/heads/", 11) != 0) {
		rc = err_set(e, ERR_NOTFOUND, "HEAD does not point at a branch");
		goto done;
	}
	if (strlen(target + 11) >= len) {
		rc = err_set(e, ERR_TOOBIG, "HEAD branch name is too long");
		goto done;
	}
	snprintf(out, len, "%s", target + 11);
done:
	git_reference_free(head);
	return rc;
}

int
repo_import(const char *root, const char *owner, const char *name, const char *from,
    struct err *e)
{
	static char	 heads[] = "+refs/heads/*:refs/heads/*";
	static char	 tags[] = "+refs/tags/*:refs/tags/*";
	char		*specs[] = { heads, tags };
	git_strarray	 refspecs = { specs, 2 };
	git_fetch_options fopts;
	git_remote_create_options ropts;
	git_repository	*src = NULL, *r = NULL;
	git_remote	*remote = NULL;
	char		*path = NULL;
	char		 branch[REPO_REF_MAX + 1], full[REPO_REF_MAX + 16];
	struct err	 local;
	int		 rc, created = 0;

	if (from == NULL || from[0] == '\0')
		return err_set(e, ERR_INVALID, "no source repository given");
	if (git_fetch_options_init(&fopts, GIT_FETCH_OPTIONS_VERSION) < 0 ||
	    git_remote_create_options_init(&ropts, GIT_REMOTE_CREATE_OPTIONS_VERSION) < 0)
		return repo_git_fail(e, ERR_GIT, "fetch options", "cannot copy the source repository");
	if (git_repository_open_ext(&src, from, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		rc = err_set(e, ERR_NOTFOUND, "source is not a git repository");
		goto done;
	}
	err_clear(&local);
	if (head_branch_of(src, branch, sizeof branch, &local) != 0)
		snprintf(branch, sizeof branch, "main");
	if ((rc = prepare_dir(&path, root, owner, name, e)) != 0)
		goto done;
	if ((rc = init_bare(&r, path, branch, e)) != 0)
		goto done;
	created = 1;
	/*
	 * An in-memory remote that skips the url.*.insteadOf lookup: that lookup
	 * goes through libgit2's regex matching, which leaks with PCRE2 in 1.5.
	 */
	ropts.repository = r;
	ropts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, git_repository_path(src), &ropts) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "remote", "cannot read the source repository");
		goto done;
	}
	fopts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_fetch(remote, &refspecs, &fopts, NULL) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "fetch", "cannot copy the source repository");
		goto done;
	}
	snprintf(full, sizeof full, "refs/heads/%s", branch);
	if (git_repository_set_head(r, full) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "set HEAD", "cannot set HEAD");
		goto done;
	}
done:
	git_remote_free(remote);
	git_repository_free(r);
	git_repository_free(src);
	if (rc != 0 && created) {
		err_clear(&local);
		repo_remove(root, owner, name, &local);
	}
	free(path);
	return rc;
}

int
repo_head_branch(const char *root, const char *owner, const char *name, char *out,
    size_t len, struct err *e)
{
	git_repository	*r = NULL;
	char		*path = NULL;
	int		 rc;

	if ((rc = repo_names_check(owner, name, e)) != 0)
		return rc;
	if ((path = repo_path(root, owner, name)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH |
	    GIT_REPOSITORY_OPEN_BARE, NULL) < 0) {
		rc = repo_git_fail(e, ERR_GIT, "open", "repository storage is not readable");
		goto done;
	}
	rc = head_branch_of(r, out, len, e);
done:
	git_repository_free(r);
	free(path);
	return rc;
}

static int
remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	if (remove(p) != 0) {
		log_error("remove %s: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

int
repo_remove(const char *root, const char *owner, const char *name, struct err *e)
{
	char	*path = NULL;
	int	 rc = 0;

	if ((rc = repo_names_check(owner, name, e)) != 0)
		return rc;
	if ((path = repo_path(root, owner, name)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		rc = err_set(e, ERR_IO, "cannot remove the repository directory");
	free(path);
	return rc;
}
