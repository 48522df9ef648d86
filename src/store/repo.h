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

/* Resolves ref (same rules as repo_read_file) to a commit id; ERR_NOTFOUND "ref 'x' not found". */
int	repo_resolve(struct repo_cache *c, char out[41], const char *owner, const char *name,
	    const char *ref, struct err *e);
/* Whether refs/heads/<branch> exists (*exists 0/1); ERR_INVALID for a bad branch name. */
int	repo_branch_exists(struct repo_cache *c, int *exists, const char *owner, const char *name,
	    const char *branch, struct err *e);

/* ---- diffs (src/store/repo_diff.c) ---- */

struct repo_diff_opts {
	int		 three_dot;	/* diff from merge-base(base, head) to head, else base to head */
	size_t		 cap;		/* bytes of patch text at most (e.g. 100 kB) */
	const char	*path;		/* only this file's patch (NULL: all files) */
	size_t		 offset;	/* skip this many bytes of the (selected) patch text */
};

struct repo_diff_file {
	char		*path;		/* new path (old path for deletions) */
	char		*old_path;	/* set for renames, else NULL */
	char		 status;	/* 'A' added, 'D' deleted, 'M' modified, 'R' renamed, 'T' type change */
	size_t		 additions;
	size_t		 deletions;
	int		 binary;
	size_t		 patch_bytes;	/* size of this file's full patch text */
};

struct repo_diff {
	char			 base[41];	/* resolved base commit */
	char			 head[41];	/* resolved head commit */
	char			 merge_base[41];	/* three-dot only; "" when unrelated */
	struct repo_diff_file	*files;
	size_t			 n_files;
	size_t			 additions, deletions;
	char			*patch;		/* unified diff text, git's format; owned */
	size_t			 patch_len;	/* bytes in patch */
	size_t			 patch_total;	/* bytes of the full selected patch */
	int			 truncated;	/* patch_total > offset + patch_len */
};

/*
 * Diffs base and head (refs as in repo_resolve) in owner/name, with
 * libgit2 only.  The patch text is what `git diff base...head` (three_dot)
 * or `git diff base head` prints, cut at opts->cap bytes on a line
 * boundary after opts->offset.  ERR_NOTFOUND names a missing ref.
 */
int	repo_diff(struct repo_cache *c, struct repo_diff *out, const char *owner, const char *name,
	    const char *base, const char *head, const struct repo_diff_opts *opts, struct err *e);
void	repo_diff_release(struct repo_diff *d);

#endif
