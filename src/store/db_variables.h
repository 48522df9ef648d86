/*
 * db_variables: the MySQL store of repository variables: named values a
 * repository keeps for its automation. Implemented in db_variables.c.
 */
#ifndef FM_DB_VARIABLES_H
#define FM_DB_VARIABLES_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

/* One repository variable (public configuration, never a credential). */
struct forge_variable {
	char		 name[65];	/* [A-Z_][A-Z0-9_]*, at most 64 */
	char		*value;		/* owned; text of at most 4096 bytes */
	char		 updated_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
	char		 updated_by[65];	/* the login, "" when that user is gone */
};

/*
 * The variables of repo_id by name, skipping offset and returning at most
 * limit; *out is freed with forge_variable_list_free.
 */
int	forge_variable_list(struct db *db, struct forge_variable **out, size_t *n,
	    uint64_t repo_id, int64_t offset, int limit, struct err *e);
void	forge_variable_list_free(struct forge_variable *v, size_t n);
/* One variable by name; ERR_NOTFOUND (no message) when repo_id has none by that name. */
int	forge_variable_get(struct db *db, struct forge_variable *out, uint64_t repo_id,
	    const char *name, struct err *e);
void	forge_variable_release(struct forge_variable *v);
/* How many variables repo_id has. */
int	forge_variable_count(struct db *db, int64_t *out, uint64_t repo_id, struct err *e);
/*
 * Creates or replaces the variable name of repo_id, recording user_id as
 * its last writer; *created is 1 when it did not exist.  The caller has
 * validated name and value.  Call inside a transaction.
 */
int	forge_variable_set(struct db *db, int *created, uint64_t repo_id, const char *name,
	    const char *value, uint64_t user_id, struct err *e);
/* Deletes the variable name of repo_id; *deleted is 1 when it existed. */
int	forge_variable_delete(struct db *db, int *deleted, uint64_t repo_id, const char *name,
	    struct err *e);

#endif
