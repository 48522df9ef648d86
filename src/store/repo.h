/* repo: the git adapter over bare repositories; the only code that includes <git2.h>. */
#ifndef FM_REPO_H
#define FM_REPO_H
#include <stddef.h>

struct err;
struct repo_cache;

/* Process-wide libgit2 set-up; call once before anything else here. */
int	repo_global_init(void);
void	repo_global_shutdown(void);

/* A cache of open repositories under root, kept between requests. */
int	repo_cache_new(struct repo_cache **out, const char *root, struct err *e);
void	repo_cache_free(struct repo_cache *c);

struct repo_file {
	char	*data;		/* owned; the (possibly capped) bytes */
	size_t	 len;		/* bytes in data */
	size_t	 size;		/* full blob size */
	int	 binary;	/* libgit2's binary heuristic */
	int	 truncated;	/* size > cap */
	char	 commit[41];	/* the commit the ref resolved to */
};

/*
 * Reads path at ref (branch, tag, or full/abbreviated commit id) in
 * <root>/<owner>/<name>.git.  ref NULL or "" means HEAD.  At most cap bytes
 * are copied.  Refs and paths are validated here: "..", absolute paths,
 * NULs and "@{" are refused (ERR_INVALID).  ERR_NOTFOUND with a message
 * naming the ref or the path when either is missing; ERR_INVALID when path
 * names a directory.
 */
int	repo_read_file(struct repo_cache *c, struct repo_file *out, const char *owner,
	    const char *name, const char *ref, const char *path, size_t cap, struct err *e);
void	repo_file_release(struct repo_file *f);

/* Creates an empty bare repository with HEAD at refs/heads/<branch>. */
int	repo_create(const char *root, const char *owner, const char *name,
	    const char *branch, struct err *e);
/* Creates a bare repository holding every ref of the repository at from. */
int	repo_import(const char *root, const char *owner, const char *name,
	    const char *from, struct err *e);
/* The branch HEAD points at (out of len bytes), for a freshly imported repository. */
int	repo_head_branch(const char *root, const char *owner, const char *name,
	    char *out, size_t len, struct err *e);

/*
 * Removes <root>/<owner>/<name>.git and everything in it (undoing a
 * repo_create or repo_import whose database row could not be written).
 * A missing directory is not an error.
 */
int	repo_remove(const char *root, const char *owner, const char *name, struct err *e);

#endif
