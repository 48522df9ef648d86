/* db: the MySQL/MariaDB adapter; the only code that includes <mysql.h>. */
#ifndef FM_DB_H
#define FM_DB_H
#include <stddef.h>
#include <stdint.h>

struct config;
struct err;
struct db;

/*
 * Creates a handle; the connection is made on first use and remade after
 * the server goes away (statements are re-prepared then): a call after a
 * failed connection tries again at once, there is no back-off.  Prepared
 * statements are cached per connection, keyed by their SQL text.
 * Errors: ERR_UNAVAILABLE when the server cannot be reached or refuses
 * the login (the message, for the operator, names the configuration keys
 * to check; it is logged, never shown to a client), ERR_TOOBIG when a
 * table or the disk is full (nothing was written; the message may be
 * shown), ERR_DB for other failures (detail logged, never shown).
 */
int	db_new(struct db **out, const struct config *cfg, struct err *e);
void	db_free(struct db *db);
/*
 * The connection writes go to: the write node's (db_write_socket, or
 * db_write_host and db_write_port) when the configuration names one, so
 * that on a cluster every host writes through one node and never collides
 * with another at commit; else db itself.  Reads stay on db, the node
 * beside the host.  Freed with db.
 */
struct db *db_writer(struct db *db);
/* A connection to the write node alone (db_new when none is named): for the merge worker and the runners, which mostly write. */
int	db_new_writer(struct db **out, const struct config *cfg, struct err *e);
/*
 * Whether the last connection attempt failed because the server refused
 * the login or the database (wrong db_user, db_password, db_name, or a
 * unix_socket account of another system user): a configuration error that
 * will not pass by itself, where any other ERR_UNAVAILABLE is an outage.
 */
int	db_login_refused(const struct db *db);

/* Highest migration compiled into this binary, and highest applied. */
int	db_schema_latest(void);
int	db_schema_version(struct db *db, int *out, struct err *e);
/*
 * Applies pending migrations in order, each recorded in schema_migrations.
 * A database newer than the binary is refused (ERR_CONFIG).  *applied
 * receives how many ran (0 on a rerun).
 */
int	db_migrate(struct db *db, int *applied, struct err *e);
/*
 * On a Galera cluster, moves the rate-limit counts to InnoDB (replicated)
 * once; *moved is 1 when it did now.
 */
int	db_galera_counts(struct db *db, int *moved, struct err *e);
/* Refuses to serve a database that is not exactly at db_schema_latest(). */
int	db_schema_check(struct db *db, struct err *e);

typedef int (*db_tx_fn)(struct db *db, void *arg, struct err *e);
/*
 * Runs fn inside one transaction and commits it, rolling back on any
 * failure; when the database aborted it as colliding with a concurrent
 * transaction (ERR_CONFLICT: a deadlock, a lock wait timeout, a Galera
 * certification failure), runs it again after a random pause, up to 24
 * times.  fn must be safe to run again after a rollback (keep what it
 * fills in arg until it returns 0).
 */
int	db_tx(struct db *db, db_tx_fn fn, void *arg, struct err *e);
/*
 * Whether the last db_tx's ERR_CONFLICT is its collisions (it gave up
 * after 24), not a conflict fn found itself (a stale version, a part out
 * of order): the first is "try again", the second the caller's to word.
 */
int	db_tx_gave_up(const struct db *db);

/* A token cache row, as looked up by hash. */
struct db_token {
	uint64_t	id;
	uint64_t	user_id;
	char		login[65];
	char		scopes[64];	/* "read,write,..." as stored */
	int		expired;	/* expires_at is in the past */
	int		revoked;	/* revoked_at is set */
	char		token_hash[65];	/* as stored, for the caller's constant-time check */
};

/*
 * Looks a token up by the lower-case hex SHA-256 of its text (one indexed
 * query) and writes last_used_at at most once a minute.  Returns 0,
 * ERR_NOTFOUND, ERR_UNAVAILABLE or ERR_DB.
 */
int	db_token_lookup(struct db *db, struct db_token *out, const char *hash_hex, struct err *e);

struct db_repo {
	uint64_t	 id;
	char		 owner[65];
	char		 name[101];
	char		*description;		/* owned, may be NULL */
	char		 default_branch[256];
	int		 private;
	char		 updated_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/*
 * Repositories user_id can see (public ones, their own, and those they
 * collaborate on), optionally filtered by a case-insensitive substring of
 * owner or name, newest updated first, at most limit rows.  *out is an
 * array the caller frees with db_repo_list_free.
 */
int	db_repo_list_visible(struct db *db, struct db_repo **out, size_t *n, uint64_t user_id,
	    const char *query, int limit, struct err *e);
void	db_repo_list_free(struct db_repo *v, size_t n);
/*
 * What a caller is told of a repository it cannot see, the same as of one
 * that does not exist, so that it learns nothing of its existence.
 */
#define DB_REPO_NOT_FOUND	"Repository not found or not accessible"
/* One visible repository by owner/name; ERR_NOTFOUND DB_REPO_NOT_FOUND when absent or not visible. */
int	db_repo_find_visible(struct db *db, struct db_repo *out, uint64_t user_id,
	    const char *owner, const char *name, struct err *e);
void	db_repo_release(struct db_repo *r);

/*
 * A bump of a principal's rate-limit bucket: block requests asked for in
 * the fixed window starting at window_start (unix seconds), the count never
 * raised over limit.  The table holds at most buckets rows.
 */
struct db_bump {
	int64_t		 window_start;
	uint64_t	 block;		/* requests asked for; at least 1 */
	uint64_t	 limit;
	unsigned	 buckets;
	uint64_t	 before;	/* out: the count before the bump */
	uint64_t	 granted;	/* out: requests counted, at most block; 0 over the limit */
};
/*
 * Counts b->block requests of principal (kind 'u' an account, principal its
 * user id, 'a' the network of a client without a valid token; at most 64
 * characters) as far as the limit allows: a request refused is not
 * counted.  Each principal has one bucket (a row) and the table holds at
 * most b->buckets of them: a principal without one takes a free one, else
 * the buckets of ended windows are deleted, else, for an account only, the
 * least recently used network's.  One round trip for a principal that has
 * a bucket.  Returns 0; ERR_TOOBIG when no bucket can be had (nothing
 * counted); ERR_UNAVAILABLE or ERR_DB.
 */
int	db_ratelimit_hit(struct db *db, char kind, const char *principal, struct db_bump *b,
	    struct err *e);
/*
 * Gives back n requests an account's worker counted in the window starting
 * at window_start and did not use; nothing when that window has ended.
 */
int	db_ratelimit_return(struct db *db, uint64_t user_id, int64_t window_start, uint64_t n,
	    struct err *e);
/*
 * db_token_lookup and, in the same round trip, the bump b of the account's
 * bucket (db_ratelimit_hit, kind 'u', principal the token's user id); only
 * a valid token is counted.  A valid token whose count cannot be kept is an
 * error, with *out filled all the same: ERR_TOOBIG when no bucket can be
 * had, ERR_UNAVAILABLE or ERR_DB.
 */
int	db_token_admit(struct db *db, struct db_token *out, const char *hash_hex,
	    struct db_bump *b, struct err *e);

/* ---- administration (the forgemcp CLI) ---- */

struct db_user {
	uint64_t	 id;
	char		 login[65];
	char		*name;		/* owned, may be NULL */
	char		*email;		/* owned, may be NULL */
	char		 created_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/* Adds a user; ERR_EXISTS ("user 'x' already exists") on a taken login. */
int	db_user_add(struct db *db, uint64_t *out, const char *login, const char *name,
	    const char *email, struct err *e);
/* Every user by login; the caller frees *out with db_user_list_free. */
int	db_user_list(struct db *db, struct db_user **out, size_t *n, struct err *e);
void	db_user_list_free(struct db_user *v, size_t n);
/* A user's id by login; ERR_NOTFOUND ("user 'x' not found"). */
int	db_user_find(struct db *db, uint64_t *out, const char *login, struct err *e);

/* A token row as listed by the CLI (never the hash). */
struct db_token_info {
	uint64_t	 id;
	char		 login[65];
	char		*name;			/* owned, may be NULL */
	char		 scopes[64];
	char		 created_at[32];
	char		 expires_at[32];	/* "" when it never expires */
	char		 last_used_at[32];	/* "" when never used */
	int		 expired;
	int		 revoked;
};

/*
 * Stores a token hash (lower-case hex SHA-256) for user_id with scopes in
 * the stored "read,write" form; ttl_seconds 0 means it never expires.
 */
int	db_token_create(struct db *db, uint64_t *out, uint64_t user_id, const char *hash_hex,
	    const char *name, const char *scopes, int64_t ttl_seconds, struct err *e);
/* Tokens, of one user when login is not NULL; free with db_token_list_free. */
int	db_token_list(struct db *db, struct db_token_info **out, size_t *n, const char *login,
	    struct err *e);
void	db_token_list_free(struct db_token_info *v, size_t n);
/* Revokes a token; *already is set when it was revoked before.  ERR_NOTFOUND. */
int	db_token_revoke(struct db *db, uint64_t id, int *already, struct err *e);
/*
 * Whether user_id holds a token that is neither revoked nor expired and
 * carries scope ("merge", ...): *out 1, else 0.
 */
int	db_token_has_scope(struct db *db, int *out, uint64_t user_id, const char *scope,
	    struct err *e);

/*
 * Inserts a repository owned by owner (a login).  ERR_NOTFOUND when the
 * user is missing, ERR_EXISTS when owner/name is taken.
 */
int	db_repo_insert(struct db *db, uint64_t *out, const char *owner, const char *name,
	    const char *description, const char *default_branch, int private_, struct err *e);
/* Every repository by owner and name; free with db_repo_list_free. */
int	db_repo_list_all(struct db *db, struct db_repo **out, size_t *n, struct err *e);
/* One repository by owner/name regardless of visibility; ERR_NOTFOUND. */
int	db_repo_find(struct db *db, struct db_repo *out, const char *owner, const char *name,
	    struct err *e);
/*
 * Gives user (a login) role (reader|writer|manager) on owner/name, replacing
 * an earlier role.  ERR_NOTFOUND naming the missing repository or user.
 */
int	db_collaborator_set(struct db *db, const char *owner, const char *name, const char *user,
	    const char *role, struct err *e);
/*
 * Takes user's role on owner/name away; *removed is 0 when user had none.
 * ERR_NOTFOUND naming the missing repository or user, ERR_INVALID when user
 * owns the repository (an owner's role cannot be removed).
 */
int	db_collaborator_remove(struct db *db, int *removed, const char *owner, const char *name,
	    const char *user, struct err *e);

/* A repository role as listed: the owner's is "owner". */
struct db_collaborator {
	char	 login[65];
	char	 role[16];	/* owner, manager, writer, reader */
};

/*
 * The owner of owner/name, then its collaborators by login; the caller
 * frees *out with free().  ERR_NOTFOUND when the repository is missing.
 */
int	db_collaborator_list(struct db *db, struct db_collaborator **out, size_t *n,
	    const char *owner, const char *name, struct err *e);

#endif
