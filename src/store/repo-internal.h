/* repo-internal: what the git adapter's files share; only src/store/repo*.c include it. */
#ifndef FM_REPO_INTERNAL_H
#define FM_REPO_INTERNAL_H
#include <git2.h>

struct budget;
struct err;
struct repo_cache;

#define REPO_REF_MAX		255	/* a reference name */
#define REPO_PATH_MAX		4096	/* a path in a repository, or of one */

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
/*
 * A ref (checked with repo_ref_check first) to a commit the caller frees:
 * HEAD, refs/..., a branch, a tag, then a commit id; ERR_NOTFOUND "ref 'x'
 * not found".
 */
int	repo_ref_commit(git_repository *r, git_commit **out, const char *ref, struct err *e);
/* Refuses an owner or a name that is not a valid repository name (ERR_INVALID). */
int	repo_names_check(const char *owner, const char *name, struct err *e);
/* <root>/<owner>/<name>.git, allocated (the caller frees it); NULL when out of memory. */
char	*repo_path(const char *root, const char *owner, const char *name);
/* A relative path of non-empty segments, none "." or ".." (ERR_INVALID). */
int	repo_path_check(const char *path, struct err *e);

/* A valid branch name (ERR_INVALID "invalid branch name ..." otherwise). */
int	repo_branch_check(const char *branch, struct err *e);
struct repo_diff;
/*
 * The diff of two trees (old NULL: everything in new_ is added) with
 * renames found as git does (git's rename limit, and a similarity metric
 * that reads each blob once); the caller frees *out.  The deadline of b
 * (NULL: none) is checked per file: ERR_TOOBIG (budget_fail) once it passed.
 */
int	repo_tree_diff(git_diff **out, git_repository *r, git_tree *old, git_tree *new_,
	    struct budget *b, struct err *e);
/* How to narrow a diff stopped by the deadline (budget_fail's hint). */
#define REPO_DIFF_HINT	"compare refs that are closer together, or pass path for one file's patch"
/* Whether the delta concerns path (its new or old side). */
int	repo_delta_is(const git_diff_delta *d, const char *path);
/*
 * The trees to compare: base's, or with three_dot the merge base's (its id
 * in out->merge_base; *old stays NULL for unrelated histories), and head's.
 * out->base and out->head get the commit ids.  The caller frees both trees.
 */
int	repo_diff_trees(git_repository *r, struct repo_diff *out, git_tree **old, git_tree **new_,
	    const char *base, const char *head, int three_dot, struct err *e);
/* Forgets every remembered ref (at shutdown). */
void	repo_ref_memo_clear(void);

#endif
