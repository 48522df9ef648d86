/* repo_refs: references checked and resolved to commits, with a memo of what loose and packed refs said. */
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
int
repo_ref_check(const char *ref, struct err *e)
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

void
repo_ref_memo_clear(void)
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
int
repo_ref_commit(git_repository *r, git_commit **out, const char *ref, struct err *e)
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


int
repo_branch_check(const char *branch, struct err *e)
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
	if ((rc = repo_ref_check(ref, e)) != 0)
		return rc;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if ((rc = repo_ref_commit(r, &commit, ref, e)) != 0)
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
	if ((rc = repo_branch_check(branch, e)) != 0)
		return rc;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	snprintf(full, sizeof full, "refs/heads/%s", branch);
	grc = git_reference_lookup(&ref, r, full);
	if (grc == 0)
		*exists = 1;
	else if (grc != GIT_ENOTFOUND)
		return repo_git_fail(e, ERR_GIT, "branch lookup", "cannot read the repository's branches");
	git_reference_free(ref);
	return 0;
}
