/* migrations: the embedded migration table and splitting a migration into statements. */
#include <string.h>
#include "store/migrations.h"

int
migration_latest(void)
{
	if (schema_migrations_len == 0)
		return 0;
	return schema_migrations[schema_migrations_len - 1].version;
}

/* Whether s[0..n) holds only blanks and "--" comment lines. */
static int
only_comments(const char *s, size_t n)
{
	size_t	i = 0;

	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++;
			continue;
		}
		if (i + 1 < n && s[i] == '-' && s[i + 1] == '-') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		return 0;
	}
	return 1;
}

int
migration_next_statement(const char *sql, size_t *pos, const char **start, size_t *len)
{
	size_t	 total = strlen(sql);

	while (*pos < total) {
		size_t	 begin = *pos, i = *pos, end = total, next = total;

		/* find a line whose last non-blank character is ';' */
		while (i < total) {
			size_t	 eol = i, last;

			while (eol < total && sql[eol] != '\n')
				eol++;
			last = eol;
			while (last > i && (sql[last - 1] == ' ' || sql[last - 1] == '\t' ||
			    sql[last - 1] == '\r'))
				last--;
			if (last > i && sql[last - 1] == ';') {
				end = last - 1;
				next = eol < total ? eol + 1 : total;
				break;
			}
			i = eol < total ? eol + 1 : total;
		}
		*pos = next;
		if (only_comments(sql + begin, end - begin))
			continue;
		*start = sql + begin;
		*len = end - begin;
		return 1;
	}
	return 0;
}
