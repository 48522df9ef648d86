/* repo-internal: what the git adapter's files share; only src/store/repo*.c include it. */
#ifndef FM_REPO_INTERNAL_H
#define FM_REPO_INTERNAL_H
#include <git2.h>

struct err;
struct repo_cache;

/* Logs libgit2's last error under what and records code with the public msg in e. */
int	repo_git_fail(struct err *e, int code, const char *what, const char *msg);
/*
 * The open repository owner/name from the cache (borrowed: valid until the
 * next call into the cache).  ERR_INVALID for bad names, ERR_GIT when the
 * storage cannot be opened.
 */
int	repo_open(struct repo_cache *c, git_repository **out, const char *owner,
	    const char *name, struct err *e);
/* Refuses refs that are not a plain branch, tag or commit id (ERR_INVALID). */
int	repo_ref_check(const char *ref, struct err *e);
/* A checked ref to a commit the caller frees; ERR_NOTFOUND "ref 'x' not found". */
int	repo_ref_commit(git_repository *r, git_commit **out, const char *ref, struct err *e);
/* A relative path of non-empty segments, none "." or ".." (ERR_INVALID). */
int	repo_path_check(const char *path, struct err *e);

#endif
