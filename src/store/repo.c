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

#include "conf.h"
#include "err.h"
#include "log.h"
#include "store/repo.h"
#include "store/repo-internal.h"

#define REPO_CACHE_SLOTS	16
#define REPO_OWNER_MAX		64
#define REPO_NAME_MAX		100

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
	repo_ref_memo_clear();
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

int
repo_names_check(const char *owner, const char *name, struct err *e)
{
	if (!valid_name(owner, REPO_OWNER_MAX))
		return err_set(e, ERR_INVALID, "invalid owner name");
	if (!valid_name(name, REPO_NAME_MAX))
		return err_set(e, ERR_INVALID, "invalid repository name");
	return 0;
}

/* <root>/<owner>/<name>.git into a new string; names must be valid. */
char *
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
		return err_set(e, ERR_CONFIG, "repo_root is not set: set repo_root in the "
		    "configuration file " CONFIG_REPO_ROOT_FIX);
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
	if ((rc = repo_names_check(owner, name, e)) != 0)
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

int
repo_path_check(const char *path, struct err *e)
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
