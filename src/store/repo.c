/* repo: the git adapter: bare repositories under one root, read and created with libgit2. */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <git2.h>

#include "err.h"
#include "log.h"
#include "store/repo.h"
#include "store/repo-internal.h"

#define REPO_CACHE_SLOTS	16
#define REPO_OWNER_MAX		64
#define REPO_NAME_MAX		100
#define REPO_REF_MAX		255
#define REPO_PATH_MAX		4096

struct repo_slot {
	char		 key[REPO_OWNER_MAX + REPO_NAME_MAX + 2];	/* "owner/name" */
	git_repository	*repo;
	unsigned long	 used;		/* tick of the last use, for LRU eviction */
};

struct repo_cache {
	char			*root;
	struct repo_slot	 slot[REPO_CACHE_SLOTS];
	unsigned long		 tick;
};

static void	ref_memo_clear(void);

/* Logs libgit2's last error and records code with msg in e. */
static int
git_fail(struct err *e, int code, const char *what, const char *msg)
{
	const git_error	*ge = git_error_last();

	log_error("git %s failed: %s", what, ge != NULL && ge->message != NULL ?
	    ge->message : "unknown error");
	return err_set(e, code, "%s", msg);
}

#define REPO_BLOB_CACHE		(64 * 1024)	/* largest blob kept in the object cache */
#define REPO_CACHE_MAX		(4 * 1024 * 1024)	/* the object cache per process */
#define REPO_WINDOW		(1024 * 1024)		/* a pack window */
#define REPO_MAPPED		(6 * 1024 * 1024)	/* pack windows mapped at once */

int
repo_global_init(void)
{
	static const int levels[] = {
		GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_GLOBAL,
		GIT_CONFIG_LEVEL_PROGRAMDATA,
	};
	size_t	 i;

	if (git_libgit2_init() < 0)
		return ERR_GIT;
	/* Only the repositories' own config counts, never the server user's. */
	for (i = 0; i < sizeof levels / sizeof levels[0]; i++)
		git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, levels[i], "");
	/* Paths are confined and validated here; workers may run as another user. */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	/*
	 * Objects are not re-hashed on every read (SHA-1 with collision
	 * detection was a tenth of a file read); zlib's checksums still catch
	 * a damaged object, as for git itself, which does not re-hash either.
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/*
	 * Keep blobs up to REPO_BLOB_CACHE in the object cache, capped at
	 * REPO_CACHE_MAX per process so a worker stays small.
	 */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)REPO_BLOB_CACHE);
	git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)REPO_CACHE_MAX);
	/*
	 * Packs are mapped in windows of REPO_WINDOW, at most REPO_MAPPED at a
	 * time per process (libgit2 maps a whole pack at once by default):
	 * mapped pages count in a worker's resident size.
	 */
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)REPO_WINDOW);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)REPO_MAPPED);
	return 0;
}

static pthread_t	repo_init_thread;
static int		repo_init_running;
static int		repo_init_rc;

static void *
repo_init_run(void *arg)
{
	(void)arg;
	repo_init_rc = repo_global_init();
	return NULL;
}

int
repo_global_start(void)
{
	if (pthread_create(&repo_init_thread, NULL, repo_init_run, NULL) != 0)
		return repo_init_rc = repo_global_init();
	repo_init_running = 1;
	return 0;
}

int
repo_global_wait(void)
{
	if (repo_init_running) {
		pthread_join(repo_init_thread, NULL);
		repo_init_running = 0;
	}
	return repo_init_rc;
}

void
repo_global_shutdown(void)
{
	ref_memo_clear();
	if (repo_global_wait() == 0)
		git_libgit2_shutdown();
}

/* [A-Za-z0-9._-]{1,max}, no leading dot, no "..". */
static int
valid_name(const char *s, size_t max)
{
	size_t	 i;

	if (s == NULL || s[0] == '\0' || s[0] == '.' || strstr(s, "..") != NULL)
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		char	 c = s[i];

		if (i >= max)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

static int
check_names(const char *owner, const char *name, struct err *e)
{
	if (!valid_name(owner, REPO_OWNER_MAX))
		return err_set(e, ERR_INVALID, "invalid owner name");
	if (!valid_name(name, REPO_NAME_MAX))
		return err_set(e, ERR_INVALID, "invalid repository name");
	return 0;
}

/* <root>/<owner>/<name>.git into a new string; names must be valid. */
static char *
repo_path(const char *root, const char *owner, const char *name)
{
	char	*p = NULL;

	if (asprintf(&p, "%s/%s/%s.git", root, owner, name) < 0)
		return NULL;
	return p;
}

int
repo_cache_new(struct repo_cache **out, const char *root, struct err *e)
{
	struct repo_cache	*c;

	*out = NULL;
	if (root == NULL || root[0] == '\0')
		return err_set(e, ERR_CONFIG, "repo_root is not set");
	if ((c = calloc(1, sizeof *c)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((c->root = strdup(root)) == NULL) {
		free(c);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	*out = c;
	return 0;
}

void
repo_cache_close_all(struct repo_cache *c)
{
	size_t	 i;

	for (i = 0; i < REPO_CACHE_SLOTS; i++) {
		git_repository_free(c->slot[i].repo);
		memset(&c->slot[i], 0, sizeof(c->slot[i]));
	}
}

void
repo_cache_free(struct repo_cache *c)
{
	size_t	 i;

	if (c == NULL)
		return;
	for (i = 0; i < REPO_CACHE_SLOTS; i++)
		git_repository_free(c->slot[i].repo);
	free(c->root);
	free(c);
}

/* The open repository owner/name from the cache, opening it (evicting the LRU) if needed. */
static int
cache_get(struct repo_cache *c, git_repository **out, const char *owner, const char *name,
    struct err *e)
{
	char		 key[sizeof c->slot[0].key];
	char		*path = NULL;
	git_repository	*r = NULL;
	size_t		 i, victim = 0;
	int		 rc = 0, grc;

	*out = NULL;
	if ((rc = check_names(owner, name, e)) != 0)
		return rc;
	snprintf(key, sizeof key, "%s/%s", owner, name);
	c->tick++;
	for (i = 0; i < REPO_CACHE_SLOTS; i++)
		if (c->slot[i].repo != NULL && strcmp(c->slot[i].key, key) == 0) {
			c->slot[i].used = c->tick;
			*out = c->slot[i].repo;
			return 0;
		}
	for (i = 0; i < REPO_CACHE_SLOTS; i++) {
		if (c->slot[i].repo == NULL) {
			victim = i;
			break;
		}
		if (c->slot[i].used < c->slot[victim].used)
			victim = i;
	}
	if ((path = repo_path(c->root, owner, name)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	grc = git_repository_open_ext(&r, path,
	    GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE, NULL);
	if (grc < 0) {
		rc = git_fail(e, ERR_GIT, "open", "repository storage is not readable");
		goto done;
	}
	git_repository_free(c->slot[victim].repo);
	snprintf(c->slot[victim].key, sizeof c->slot[victim].key, "%s", key);
	c->slot[victim].repo = r;
	c->slot[victim].used = c->tick;
	*out = r;
	r = NULL;
done:
	git_repository_free(r);
	free(path);
	return rc;
}

static int
is_hex(const char *s, size_t *len)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		    (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	*len = i;
	return 1;
}

/* Refuses refs that are not a plain branch, tag or commit id. */
static int
check_ref(const char *ref, struct err *e)
{
	char	 full[REPO_REF_MAX + 16];
	size_t	 i, hexlen;
	int	 valid = 0;

	if (strlen(ref) > REPO_REF_MAX)
		return err_set(e, ERR_INVALID, "ref is too long");
	if (ref[0] == '-' || strstr(ref, "..") != NULL || strstr(ref, "@{") != NULL ||
	    strpbrk(ref, "~^:\\ ?*[") != NULL)
		return err_set(e, ERR_INVALID, "invalid ref '%s'", ref);
	for (i = 0; ref[i] != '\0'; i++)
		if ((unsigned char)ref[i] < 0x20 || ref[i] == 0x7f)
			return err_set(e, ERR_INVALID, "invalid ref");
	if (is_hex(ref, &hexlen) && hexlen <= GIT_OID_HEXSZ)
		return 0;
	if (strncmp(ref, "refs/", 5) == 0)
		snprintf(full, sizeof full, "%s", ref);
	else
		snprintf(full, sizeof full, "refs/heads/%s", ref);
	if (git_reference_name_is_valid(&valid, full) < 0 || !valid)
		return err_set(e, ERR_INVALID, "invalid ref '%s'", ref);
	return 0;
}

/*
 * What try_ref found for a reference name, remembered with the stat of the
 * files it came from: the loose reference and packed-refs.  While both
 * stats are unchanged the answer is too, and the lookup (an open, a read
 * and a close of each file, a parse) is skipped: a ref resolves with one
 * stat per file.  git and libgit2 write a reference by renaming a new file
 * over it, so an update changes the inode as well as the times.  Only
 * direct references and absent ones are remembered; a symbolic one (HEAD)
 * depends on a third file.  As with git's racily clean index entries, an
 * answer read from a file modified less than REF_MEMO_SETTLE seconds ago
 * is not remembered: on a file system that keeps whole seconds, a second
 * update within the same second could reuse the first one's inode and leave
 * every stat field as it was.
 */
#define REF_MEMO_SLOTS	64
#define REF_MEMO_SETTLE	2

struct ref_stamp {
	int		 present;
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtime, ctime;
};

struct ref_memo {
	char		*key;		/* the loose reference's path */
	size_t		 keylen;
	struct ref_stamp loose, packed;
	int		 found;
	git_oid		 commit;
	unsigned long	 used;
};

static struct ref_memo	 ref_memo[REF_MEMO_SLOTS];
static unsigned long	 ref_memo_tick;

static void
ref_stamp_of(struct ref_stamp *st, const char *path)
{
	struct stat	 sb;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb) != 0)
		return;
	st->present = 1;
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	st->size = sb.st_size;
	st->mtime = sb.st_mtim;
	st->ctime = sb.st_ctim;
}

static int
ref_stamp_same(const struct ref_stamp *a, const struct ref_stamp *b)
{
	return a->present == b->present && a->dev == b->dev && a->ino == b->ino &&
	    a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	    a->mtime.tv_nsec == b->mtime.tv_nsec && a->ctime.tv_sec == b->ctime.tv_sec &&
	    a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* Whether the file was modified too recently for its stat to be trusted. */
static int
ref_stamp_settling(const struct ref_stamp *st, time_t now)
{
	return st->present && now - st->mtime.tv_sec < REF_MEMO_SETTLE;
}

static struct ref_memo *
ref_memo_find(const char *key, size_t keylen)
{
	size_t	 i;

	for (i = 0; i < REF_MEMO_SLOTS; i++)
		if (ref_memo[i].key != NULL && ref_memo[i].keylen == keylen &&
		    memcmp(ref_memo[i].key, key, keylen) == 0)
			return &ref_memo[i];
	return NULL;
}

static void
ref_memo_store(const char *key, size_t keylen, const struct ref_stamp *loose,
    const struct ref_stamp *packed, int found, const git_oid *commit)
{
	struct ref_memo	*m;
	size_t		 i;
	time_t		 now = time(NULL);

	if (ref_stamp_settling(loose, now) || ref_stamp_settling(packed, now)) {
		if ((m = ref_memo_find(key, keylen)) != NULL) {
			free(m->key);
			memset(m, 0, sizeof(*m));
		}
		return;
	}
	if ((m = ref_memo_find(key, keylen)) == NULL) {
		m = &ref_memo[0];
		for (i = 1; i < REF_MEMO_SLOTS && m->key != NULL; i++)
			if (ref_memo[i].key == NULL || ref_memo[i].used < m->used)
				m = &ref_memo[i];
		free(m->key);
		if ((m->key = malloc(keylen)) == NULL)
			return;
		memcpy(m->key, key, keylen);
		m->keylen = keylen;
	}
	m->loose = *loose;
	m->packed = *packed;
	m->found = found;
	if (found)
		git_oid_cpy(&m->commit, commit);
	m->used = ++ref_memo_tick;
}

static void
ref_memo_clear(void)
{
	size_t	 i;

	for (i = 0; i < REF_MEMO_SLOTS; i++)
		free(ref_memo[i].key);
	memset(ref_memo, 0, sizeof(ref_memo));
}

/*
 * Peels reference name (when it exists) to a commit: 1 when found, 0 when
 * absent (no such reference, or it names a missing object), -1 when the
 * reference or its object cannot be read (damaged storage; logged).
 * gitdir (ending with a slash) and packed, the stat of its packed-refs
 * taken before any reference was looked at, are for the memo; gitdir NULL
 * looks without it.
 */
static int
try_ref(git_repository *r, git_commit **out, const char *name, const char *gitdir,
    const struct ref_stamp *packed)
{
	git_reference		*ref = NULL;
	git_object		*obj = NULL;
	struct ref_memo		*m;
	struct ref_stamp	 loose;
	char			 key[REPO_PATH_MAX + REPO_REF_MAX + 16];
	size_t			 keylen = 0;
	int			 found = 0, grc, n;

	/* the key is the loose reference's file */
	if (gitdir != NULL && (n = snprintf(key, sizeof key, "%s%s", gitdir, name)) > 0 &&
	    (size_t)n < sizeof key) {
		keylen = (size_t)n;
		ref_stamp_of(&loose, key);
		if ((m = ref_memo_find(key, keylen)) != NULL &&
		    ref_stamp_same(&m->loose, &loose) && ref_stamp_same(&m->packed, packed)) {
			m->used = ++ref_memo_tick;
			if (!m->found)
				return 0;
			if (git_commit_lookup(out, r, &m->commit) == 0)
				return 1;
		}
	}
	if ((grc = git_reference_lookup(&ref, r, name)) < 0) {
		if (grc == GIT_ENOTFOUND && keylen > 0)
			ref_memo_store(key, keylen, &loose, packed, 0, NULL);
		if (grc != GIT_ENOTFOUND && grc != GIT_EINVALIDSPEC)
			found = -1;
		goto done;
	}
	if ((grc = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT)) < 0) {
		if (grc != GIT_ENOTFOUND && grc != GIT_EPEEL)
			found = -1;
		goto done;
	}
	if (keylen > 0 && git_reference_type(ref) == GIT_REFERENCE_DIRECT)
		ref_memo_store(key, keylen, &loose, packed, 1, git_object_id(obj));
	*out = (git_commit *)obj;
	obj = NULL;
	found = 1;
done:
	if (found < 0)
		log_error("git ref '%s' failed: %s", name, git_error_last() != NULL &&
		    git_error_last()->message != NULL ? git_error_last()->message : "unknown error");
	git_object_free(obj);
	git_reference_free(ref);
	return found;
}

/* Resolves ref (validated) to a commit: HEAD, refs/..., branch, tag, then commit id. */
static int
resolve_ref(git_repository *r, git_commit **out, const char *ref, struct err *e)
{
	char		 full[REPO_REF_MAX + 16], packed_path[REPO_PATH_MAX + 16];
	const char	*gitdir = git_repository_path(r);
	struct ref_stamp packed;
	git_object	*obj = NULL, *peeled = NULL;
	git_oid		 oid;
	size_t		 hexlen;
	int		 rc = 0, grc, found, n;

	*out = NULL;
	memset(&packed, 0, sizeof(packed));
	if (gitdir != NULL && (n = snprintf(packed_path, sizeof packed_path, "%spacked-refs",
	    gitdir)) > 0 && (size_t)n < sizeof packed_path)
		ref_stamp_of(&packed, packed_path);
	else
		gitdir = NULL;
	/* HEAD is symbolic: never remembered, so not looked up in the memo either */
	if (strcmp(ref, "HEAD") == 0 && (found = try_ref(r, out, "HEAD", NULL, &packed)) != 0)
		goto found;
	if (strncmp(ref, "refs/", 5) == 0 && (found = try_ref(r, out, ref, gitdir, &packed)) != 0)
		goto found;
	snprintf(full, sizeof full, "refs/heads/%s", ref);
	if ((found = try_ref(r, out, full, gitdir, &packed)) != 0)
		goto found;
	snprintf(full, sizeof full, "refs/tags/%s", ref);
	if ((found = try_ref(r, out, full, gitdir, &packed)) != 0)
		goto found;
	if (is_hex(ref, &hexlen) && hexlen >= 4 && hexlen <= GIT_OID_HEXSZ &&
	    git_oid_fromstrn(&oid, ref, hexlen) == 0) {
		grc = git_object_lookup_prefix(&obj, r, &oid, hexlen, GIT_OBJECT_ANY);
		if (grc == GIT_EAMBIGUOUS) {
			rc = err_set(e, ERR_INVALID, "ref '%s' is ambiguous: give more digits", ref);
			goto done;
		}
		if (grc == 0 && git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
			*out = (git_commit *)peeled;
			peeled = NULL;
			goto done;
		}
	}
	rc = err_set(e, ERR_NOTFOUND, "ref '%s' not found", ref);
done:
	git_object_free(peeled);
	git_object_free(obj);
	return rc;
found:
	if (found < 0)
		return err_set(e, ERR_GIT, "cannot read the commit the ref points at");
	return 0;
}

/* A relative path of non-empty segments, none "." or "..". */
static int
check_path(const char *path, struct err *e)
{
	const char	*seg, *end;
	size_t		 n;

	if (path == NULL || path[0] == '\0')
		return err_set(e, ERR_INVALID, "path is empty");
	if (strlen(path) > REPO_PATH_MAX)
		return err_set(e, ERR_INVALID, "path is too long");
	if (path[0] == '/')
		return err_set(e, ERR_INVALID, "path must be relative to the repository root");
	for (seg = path; ; seg = end + 1) {
		end = strchr(seg, '/');
		n = end != NULL ? (size_t)(end - seg) : strlen(seg);
		if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' &&
		    seg[1] == '.'))
			return err_set(e, ERR_INVALID, "invalid path '%s'", path);
		if (end == NULL)
			break;
	}
	return 0;
}

/* Makes <root>/<owner> and checks <root>/<owner>/<name>.git is free; *path receives the latter. */
static int
prepare_dir(char **path, const char *root, const char *owner, const char *name, struct err *e)
{
	char		*dir = NULL;
	struct stat	 st;
	int		 rc = 0;

	*path = NULL;
	if ((rc = check_names(owner, name, e)) != 0)
		return rc;
	if (root == NULL || root[0] == '\0')
		return err_set(e, ERR_CONFIG, "repo_root is not set");
	if (asprintf(&dir, "%s/%s", root, owner) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		log_error("mkdir %s: %s", dir, strerror(errno));
		rc = err_set(e, ERR_IO, "cannot create the owner's directory");
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
check_branch(const char *branch, struct err *e)
{
	char	 full[REPO_REF_MAX + 16];
	int	 valid = 0;

	if (branch == NULL || branch[0] == '\0' || strlen(branch) > REPO_REF_MAX ||
	    branch[0] == '-')
		return err_set(e, ERR_INVALID, "invalid branch name");
	snprintf(full, sizeof full, "refs/heads/%s", branch);
	if (git_reference_name_is_valid(&valid, full) < 0 || !valid)
		return err_set(e, ERR_INVALID, "invalid branch name '%s'", branch);
	return 0;
}

static int
init_bare(git_repository **out, const char *path, const char *branch, struct err *e)
{
	git_repository_init_options	 opts;

	if (git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION) < 0)
		return git_fail(e, ERR_GIT, "init options", "cannot create the repository");
	opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_NO_REINIT |
	    GIT_REPOSITORY_INIT_MKDIR;
	opts.mode = GIT_REPOSITORY_INIT_SHARED_UMASK;
	opts.initial_head = branch;
	if (git_repository_init_ext(out, path, &opts) < 0)
		return git_fail(e, ERR_GIT, "init", "cannot create the repository");
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

	if ((rc = check_branch(branch, e)) != 0)
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
		rc = git_fail(e, ERR_GIT, "HEAD", "cannot read HEAD");
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
		return git_fail(e, ERR_GIT, "fetch options", "cannot copy the source repository");
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
		rc = git_fail(e, ERR_GIT, "remote", "cannot read the source repository");
		goto done;
	}
	fopts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_fetch(remote, &refspecs, &fopts, NULL) < 0) {
		rc = git_fail(e, ERR_GIT, "fetch", "cannot copy the source repository");
		goto done;
	}
	snprintf(full, sizeof full, "refs/heads/%s", branch);
	if (git_repository_set_head(r, full) < 0) {
		rc = git_fail(e, ERR_GIT, "set HEAD", "cannot set HEAD");
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

	if ((rc = check_names(owner, name, e)) != 0)
		return rc;
	if ((path = repo_path(root, owner, name)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH |
	    GIT_REPOSITORY_OPEN_BARE, NULL) < 0) {
		rc = git_fail(e, ERR_GIT, "open", "repository storage is not readable");
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

	if ((rc = check_names(owner, name, e)) != 0)
		return rc;
	if ((path = repo_path(root, owner, name)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		rc = err_set(e, ERR_IO, "cannot remove the repository directory");
	free(path);
	return rc;
}

int
repo_git_fail(struct err *e, int code, const char *what, const char *msg)
{
	return git_fail(e, code, what, msg);
}

int
repo_open(struct repo_cache *c, git_repository **out, const char *owner, const char *name,
    struct err *e)
{
	return cache_get(c, out, owner, name, e);
}

int
repo_ref_check(const char *ref, struct err *e)
{
	return check_ref(ref, e);
}

int
repo_ref_commit(git_repository *r, git_commit **out, const char *ref, struct err *e)
{
	return resolve_ref(r, out, ref, e);
}

int
repo_path_check(const char *path, struct err *e)
{
	return check_path(path, e);
}

int
repo_resolve(struct repo_cache *c, char out[41], const char *owner, const char *name,
    const char *ref, struct err *e)
{
	git_repository	*r;
	git_commit	*commit = NULL;
	int		 rc;

	out[0] = '\0';
	if (ref == NULL || ref[0] == '\0')
		ref = "HEAD";
	if ((rc = check_ref(ref, e)) != 0)
		return rc;
	if ((rc = cache_get(c, &r, owner, name, e)) != 0)
		return rc;
	if ((rc = resolve_ref(r, &commit, ref, e)) != 0)
		return rc;
	git_oid_tostr(out, 41, git_commit_id(commit));
	git_commit_free(commit);
	return 0;
}

int
repo_branch_exists(struct repo_cache *c, int *exists, const char *owner, const char *name,
    const char *branch, struct err *e)
{
	git_repository	*r;
	git_reference	*ref = NULL;
	char		 full[REPO_REF_MAX + 16];
	int		 rc, grc;

	*exists = 0;
	if ((rc = check_branch(branch, e)) != 0)
		return rc;
	if ((rc = cache_get(c, &r, owner, name, e)) != 0)
		return rc;
	snprintf(full, sizeof full, "refs/heads/%s", branch);
	grc = git_reference_lookup(&ref, r, full);
	if (grc == 0)
		*exists = 1;
	else if (grc != GIT_ENOTFOUND)
		return git_fail(e, ERR_GIT, "branch lookup", "cannot read the repository's branches");
	git_reference_free(ref);
	return 0;
}
