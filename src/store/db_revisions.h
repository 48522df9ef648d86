/*
 * db_revisions: the MySQL store of pull request revisions and the pull
 * request's status. Implemented in db_revisions.c.
 */
#ifndef FM_DB_REVISIONS_H
#define FM_DB_REVISIONS_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

/* One row of pull_request_revisions. */
struct forge_revision {
	int64_t	 version;
	char	 head_commit[41];
	char	 base_ref[256];
	char	 base_commit[41];
	char	 merge_base[41];	/* "" when the histories share no commit */
	char	 reason[8];		/* opened, push, target */
	char	 created_at[32];
};

/* What pull_requests holds beyond struct forge_item: the revision and the merge. */
struct forge_pull_status {
	int64_t	 version;		/* the current revision, 0 before the first */
	char	 merge_state[8];	/* none, queued, running, merged, failed */
	char	 merge_commit[41];	/* "" until merged */
};

int	forge_pull_status_get(struct db *db, struct forge_pull_status *out, uint64_t pull_id,
	    struct err *e);
/*
 * Revision version of pull request pull_id, or the latest one when
 * version is 0.  ERR_NOTFOUND (no message) when there is no such one.
 */
int	forge_revision_get(struct db *db, struct forge_revision *out, uint64_t pull_id,
	    int64_t version, struct err *e);
/*
 * Locks pull request pull_id's row until the transaction ends and reads
 * its status; ERR_NOTFOUND (no message) when it is gone.
 */
int	forge_revision_lock(struct db *db, struct forge_pull_status *out, uint64_t pull_id,
	    struct err *e);
/*
 * Adds rev (rev->version the next number) to pull request pull_id and
 * makes it the current version, inside a transaction that holds
 * forge_revision_lock (or that inserted the pull request).
 */
int	forge_revision_insert(struct db *db, uint64_t pull_id, const struct forge_revision *rev,
	    struct err *e);
/*
 * Reads pull request number of repo_id as forge_item_get does and locks
 * its row until the transaction ends; *st receives its status.
 * ERR_NOTFOUND (no message) when repo_id has no such pull request.
 */
int	forge_pull_lock(struct db *db, struct forge_item *out, struct forge_pull_status *st,
	    uint64_t repo_id, int64_t number, struct err *e);
/*
 * Replaces title, body (may be NULL), base_ref and closing_issue_numbers
 * (closing NULL for none) of pull request id and advances edit_version,
 * provided it is still expect: otherwise nothing changes and *stale is 1.
 */
int	forge_pull_update(struct db *db, int *stale, uint64_t id, int64_t expect,
	    const char *title, const char *body, const char *base, const char *closing,
	    struct err *e);
/*
 * Sets pull request id closed (closed 1, closed_at now) or open (closed
 * 0, closed_at cleared); a merged one is left as it is.  Call inside a
 * transaction that holds forge_pull_lock.
 */
int	forge_pull_set_state(struct db *db, uint64_t id, int closed, struct err *e);

#endif
