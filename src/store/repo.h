/* repo: the git adapter over bare repositories; the only code that includes <git2.h>. */
#ifndef FM_REPO_H
#define FM_REPO_H
#include <stddef.h>

struct budget;
struct err;
struct repo_cache;

/* Process-wide libgit2 set-up; call once before anything else here. */
int	repo_global_init(void);
/*
 * The same set-up begun on a thread of its own, so that a server can do
 * other start-up work meanwhile (libgit2 parses the system's CA bundle at
 * set-up, several milliseconds).  repo_global_wait() ends it and returns
 * its result; call it before fork() and before anything else here.
 */
int	repo_global_start(void);
int	repo_global_wait(void);
/* Waits for a set-up still running, then undoes it. */
void	repo_global_shutdown(void);

/* A cache of open repositories under root, kept between requests. */
int	repo_cache_new(struct repo_cache **out, const char *root, struct err *e);
void	repo_cache_free(struct repo_cache *c);
/*
 * Closes every cached repository: their packs' maps and delta caches and
 * the objects libgit2 keeps for them go back to the system.
 */
void	repo_cache_close_all(struct repo_cache *c);

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

/*
 * Resolves ref (branch, tag, or full/abbreviated commit id; NULL or "" means
 * HEAD) to a commit id.  Refs are validated here: anything else ("..",
 * "@{", "~", control characters) is refused (ERR_INVALID).  ERR_NOTFOUND
 * "ref 'x' not found".
 */
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
	struct budget	*budget;	/* the request's deadline; NULL: none */
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
 * boundary after opts->offset.  ERR_NOTFOUND names a missing ref;
 * ERR_TOOBIG (budget_fail) when opts->budget's deadline passes first.
 */
int	repo_diff(struct repo_cache *c, struct repo_diff *out, const char *owner, const char *name,
	    const char *base, const char *head, const struct repo_diff_opts *opts, struct err *e);
void	repo_diff_release(struct repo_diff *d);
/*
 * The merge base of a and b (refs as in repo_resolve) into out, "" when
 * the two histories share no commit.  ERR_NOTFOUND names a missing ref.
 */
int	repo_merge_base(struct repo_cache *c, char out[41], const char *owner, const char *name,
	    const char *a, const char *b, struct err *e);

/*
 * Checks a review anchor against the diff from old_commit ("" or NULL:
 * the empty tree) to new_commit (full commit ids) in owner/name, with
 * repo_diff's rename detection: path must be a file of that diff, and
 * line a line of side new_side (1: the new side, its added and context
 * lines; 0: the old side, its removed and context lines) shown in one of
 * its hunks.  *out (caller frees) receives the context: a hunk header
 * "@@ -a,b +c,d @@" and up to around diff lines either side of the
 * anchored one within its hunk, each with its " ", "+" or "-" prefix,
 * as UTF-8 (lines cut at 400 bytes).  ERR_INVALID messages name what
 * (e.g. "revision 2") and, for a bad line, the valid lines of that side.
 */
int	repo_diff_anchor(struct repo_cache *c, char **out, const char *owner, const char *name,
	    const char *old_commit, const char *new_commit, const char *path, int new_side,
	    size_t line, size_t around, const char *what, struct err *e);

/* ---- code search (src/store/repo_search.c) ---- */

struct repo_search_opts {
	const char	*query;		/* fixed string, or a pcre2 pattern when regex */
	int		 regex;		/* pcre2, caseless, ^ and $ at line ends */
	const char	*glob;		/* NULL, or only paths matching it (see repo_glob_match) */
	size_t		 limit;		/* hits at most */
	size_t		 offset;	/* skip this many hits first (paging) */
	size_t		 max_blob;	/* larger blobs are skipped and counted */
	struct budget	*budget;	/* the request's deadline and search steps; NULL: none */
};

struct repo_search_hit {
	char	*path;		/* owned */
	size_t	 line;		/* 1-based */
	char	*snippet;	/* owned; the line, at most ~200 bytes around the match, UTF-8 */
};

struct repo_search {
	char			 commit[41];	/* what ref resolved to */
	struct repo_search_hit	*hits;
	size_t			 n_hits;
	int			 truncated;	/* more hits exist after these */
	size_t			 skipped;	/* text blobs over max_blob, not searched */
	int			 stopped;	/* BUDGET_TIME or BUDGET_STEPS: cut short (truncated) */
};

/*
 * Searches every text blob of the tree at ref (as in repo_resolve) for
 * opts->query: a case-insensitive (ASCII) fixed string by default, or a
 * pcre2 pattern (caseless, multiline) with match and depth limits.  One hit
 * per matching line, in tree order (path, then line).  Binary blobs are
 * skipped.  The search spends opts->budget: every pcre2 step of the
 * pattern and BUDGET_HIT_STEPS per match found, the skipped ones too.
 * When the steps run out or the deadline passes it stops and returns the
 * hits found so far in order, with truncated and stopped set (not an
 * error).  ERR_INVALID with pcre2's message for a bad pattern, and for a
 * pattern that hits the match limit in one match; ERR_NOTFOUND for a
 * missing ref.
 */
int	repo_search(struct repo_cache *c, struct repo_search *out, const char *owner,
	    const char *name, const char *ref, const struct repo_search_opts *opts,
	    struct err *e);
void	repo_search_release(struct repo_search *s);
/*
 * Whether path matches glob: '*' and '?' stay inside one segment, "**" as
 * a whole segment matches any number of segments (also none), [...] a
 * class; a glob without '/' matches the last segment at any depth.
 */
int	repo_glob_match(const char *glob, const char *path);
/*
 * Whether a path below the directory dir ("a/b") may match glob; 0 only
 * when none can (the search then skips that directory).
 */
int	repo_glob_dir_may_match(const char *glob, const char *dir);

/* ---- branches, history, trees (src/store/repo_log.c) ---- */

struct repo_branch {
	char	*name;		/* owned; without refs/heads/ */
	char	 target[41];	/* the commit it points at */
	int	 is_default;
};

/*
 * Branches by name, those after `after` (NULL: from the start), at most
 * limit; *truncated when more follow.  default_branch (NULL or "": the
 * branch HEAD points at) gets is_default.  Free with repo_branches_free.
 */
int	repo_branches(struct repo_cache *c, struct repo_branch **out, size_t *n, int *truncated,
	    const char *owner, const char *name, const char *default_branch, const char *after,
	    size_t limit, struct err *e);
void	repo_branches_free(struct repo_branch *v, size_t n);

struct repo_commit {
	char	 id[41];
	char	*author_name;	/* owned */
	char	*author_email;	/* owned */
	char	 date[32];	/* author date, "YYYY-MM-DDTHH:MM:SSZ" */
	char	*subject;	/* owned; the first line of the message */
};

struct repo_log {
	char			 head[41];	/* what ref resolved to */
	struct repo_commit	*commits;
	size_t			 n;
	int			 truncated;	/* more commits follow the last one */
};

/*
 * History from ref, newest first by committer date (git log's order); with
 * path, only commits that change it, simplified like `git log -- path`.
 * after (a full commit id from an earlier page, or NULL) continues after
 * that commit; ERR_INVALID when it is not in this history.  At most limit.
 * The deadline of b (NULL: none) is checked at every commit of the walk:
 * ERR_TOOBIG (budget_fail) once it passed.
 */
int	repo_log(struct repo_cache *c, struct repo_log *out, const char *owner, const char *name,
	    const char *ref, const char *path, const char *after, size_t limit,
	    struct budget *b, struct err *e);
void	repo_log_release(struct repo_log *l);

enum repo_entry_type {
	REPO_ENTRY_BLOB,	/* REPO_ENTRY_BLOB: a file */
	REPO_ENTRY_TREE,	/* REPO_ENTRY_TREE: a directory */
	REPO_ENTRY_COMMIT,	/* REPO_ENTRY_COMMIT: a submodule */
	REPO_ENTRY_SYMLINK,	/* REPO_ENTRY_SYMLINK */
	REPO_ENTRY__MAX
};

struct repo_entry {
	char			*name;	/* owned */
	char			*path;	/* owned; from the root */
	enum repo_entry_type	 type;
	unsigned		 mode;	/* git's file mode, e.g. 0100644 */
	size_t			 size;	/* blobs and symlinks; 0 otherwise */
	char			 id[41];
};

struct repo_tree {
	char			 commit[41];
	struct repo_entry	*entries;
	size_t			 n;
	size_t			 total;		/* entries in the directory */
	int			 truncated;	/* total > offset + n */
};

/*
 * The directory path (NULL or "": the root) at ref, in git's order,
 * entries [offset, offset + limit).  ERR_NOTFOUND for a missing ref or
 * path ("path not found: p@ref"), ERR_INVALID when path is a file.
 */
int	repo_tree_list(struct repo_cache *c, struct repo_tree *out, const char *owner,
	    const char *name, const char *ref, const char *path, size_t offset, size_t limit,
	    struct err *e);
void	repo_tree_release(struct repo_tree *t);

/* ---- line windows of a file (src/store/repo_log.c) ---- */

struct repo_lines {
	char	*data;		/* owned; the window's bytes (NUL-terminated) */
	size_t	 len;
	size_t	 size;		/* full blob size */
	int	 binary;	/* libgit2's heuristic; then data is bytes [0, len) */
	size_t	 total_lines;	/* lines in the file (a last line without '\n' counts) */
	size_t	 start_line;	/* 1-based first line in data; 0 when none */
	size_t	 end_line;	/* last line in data (inclusive); 0 when none */
	int	 cut_line;	/* the last line was cut at max_bytes */
	char	 commit[41];
};

/*
 * Lines [start, start + max_lines) of path at ref (start 1-based), but
 * never more than max_bytes: whole lines while they fit; a first line
 * longer than max_bytes is cut (cut_line).  Binary blobs give their first
 * max_bytes bytes.  ref as in repo_resolve; path is relative, and
 * absolute paths, "." and ".." segments are refused (ERR_INVALID).
 * ERR_NOTFOUND "File not found: path@ref" (ref as given, the text
 * get_file_contents shows) when the path is missing, naming the ref when
 * the ref is; ERR_INVALID when path names a directory or a submodule, or
 * when start is past the end of a non-empty file.
 */
int	repo_read_lines(struct repo_cache *c, struct repo_lines *out, const char *owner,
	    const char *name, const char *ref, const char *path, size_t start, size_t max_lines,
	    size_t max_bytes, struct err *e);
void	repo_lines_release(struct repo_lines *l);

/* ---- whole files (src/store/repo_blob.c) ---- */

struct repo_blob {
	char	*data;		/* owned; len bytes and a NUL */
	size_t	 len;
	size_t	 size;		/* the blob's size, also when over max */
	char	 id[41];	/* the blob id */
};

/*
 * The file path at commit (a ref as in repo_resolve; callers pass the full
 * commit id they pinned) of owner/name: its bytes and blob id.
 * ERR_NOTFOUND "File not found: path@commit" when path is missing or not a
 * file; ERR_TOOBIG when it is over max bytes (out->size, out->id set).
 * Release with repo_blob_release, also on error.
 */
int	repo_blob_read(struct repo_cache *c, struct repo_blob *out, const char *owner,
	    const char *name, const char *commit, const char *path, size_t max, struct err *e);
void	repo_blob_release(struct repo_blob *b);

/* ---- the CI runner's checkouts (src/store/repo_checkout.c) ---- */

/*
 * Blob id (40 hex digits) of owner/name, as repo_blob_read returns a file:
 * ERR_NOTFOUND when there is none, ERR_TOOBIG over max bytes.
 */
int	repo_blob_by_id(struct repo_cache *c, struct repo_blob *out, const char *owner,
	    const char *name, const char *id, size_t max, struct err *e);
/*
 * Writes the files of commit (a full commit id) of owner/name into the
 * existing empty directory dir: files with their executable bit, links
 * as links, no .git and no submodules.
 */
int	repo_checkout(struct repo_cache *c, const char *owner, const char *name,
	    const char *commit, const char *dir, struct err *e);

/* ---- merges (src/store/repo_merge.c) ---- */

enum repo_merge_strategy {
	REPO_MERGE_COMMIT,		/* REPO_MERGE_COMMIT: a merge commit (target, head) */
	REPO_MERGE_SQUASH,		/* REPO_MERGE_SQUASH: one commit on the target, head's tree merged */
	REPO_MERGE_FAST_FORWARD,	/* REPO_MERGE_FAST_FORWARD: the target moves to the head */
	REPO_MERGE__MAX
};

/* What to merge, and as whom. */
struct repo_merge_req {
	enum repo_merge_strategy strategy;
	const char	*head_branch;	/* the pull request's head branch */
	const char	*head_commit;	/* the commit the merge was asked for (40 hex) */
	const char	*target_branch;
	const char	*message;	/* the new commit's message (not for a fast-forward) */
	const char	*who;		/* author and committer name */
	const char	*email;		/* their e-mail address */
	long long	 version;	/* the revision, for messages */
};

/*
 * Builds the merge of req on the target branch's current commit of
 * owner/name, writing objects only (no ref moves): base receives the
 * target commit it was built on, result the commit the target should
 * move to.  ERR_CONFLICT with a public sentence when the merge cannot be
 * made as asked: the head branch moved or is gone, the target already
 * contains the head, a conflict (the paths named), a fast-forward of a
 * target that is not an ancestor of the head.  ERR_NOTFOUND when the
 * target branch is gone; ERR_GIT for storage failures.
 */
int	repo_merge_build(struct repo_cache *c, char base[41], char result[41], const char *owner,
	    const char *name, const struct repo_merge_req *req, struct err *e);
/*
 * Moves refs/heads/branch of owner/name from old_id to new_id (compare
 * and swap under the ref's lock file, with a reflog entry saying why).
 * ERR_CONFLICT (no message) when the branch no longer holds old_id, or is
 * locked by another writer; nothing moved then.
 */
int	repo_merge_move(struct repo_cache *c, const char *owner, const char *name,
	    const char *branch, const char *new_id, const char *old_id, const char *why,
	    struct err *e);
/*
 * The commit refs/heads/branch of owner/name holds now into now ("" when
 * the branch is gone), and *contains: whether commit is that commit or
 * one of its ancestors.
 */
int	repo_merge_contains(struct repo_cache *c, char now[41], int *contains, const char *owner,
	    const char *name, const char *branch, const char *commit, struct err *e);

/* ---- the wiki's Markdown files (src/store/repo_wiki.c) ---- */

struct repo_file {
	char	*path;		/* owned; from the root */
	char	*data;		/* owned; size bytes and a NUL; NULL for a file not *.md */
	size_t	 size;
};

struct repo_files {
	char			 commit[41];
	struct repo_file	*v;
	size_t			 n;
};

/*
 * Every file at the head of refs/heads/branch of owner/name, in git's tree
 * order (a directory's entries after it): those named *.md with their
 * bytes, the others with their size alone (symbolic links and submodules
 * left out).  ERR_TOOBIG
 * naming the file past a limit: more than max_files, a *.md file over
 * max_bytes, or over max_total of them in all; ERR_NOTFOUND for a branch that is not there.
 * Release with repo_files_release, also on error.
 */
int	repo_md_files(struct repo_cache *c, struct repo_files *out, const char *owner,
	    const char *name, const char *branch, size_t max_files, size_t max_bytes,
	    size_t max_total, struct err *e);
void	repo_files_release(struct repo_files *f);

#endif
