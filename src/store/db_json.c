/* db_json: rows of a result as JSON objects, for the hub's stores (db-internal.h). */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "store/db-internal.h"

/*
 * A row as an object: names (NULL-terminated) are its members, kinds their
 * JSON types, one letter a column: 's' string, 'u' count, 'n' number, 'b'
 * 0/1.  NULL when out of memory, or when names, kinds and the row's columns
 * do not match (a bug, caught by every test that reads the row).
 */
struct json_object *
tracker_row(const struct db_rows *r, size_t row, const char *const *names, const char *kinds)
{
	struct json_object	*o, *v;
	const char		*cell;
	size_t			 i;

	for (i = 0; names[i] != NULL && kinds[i] != '\0'; i++)
		;
	if (names[i] != NULL || kinds[i] != '\0' || i != r->ncols)
		return NULL;
	if ((o = json_object_new_object()) == NULL)
		return NULL;
	for (i = 0; kinds[i] != '\0'; i++) {
		cell = db_rows_get(r, row, i);
		if (cell == NULL)
			v = NULL;
		else if (kinds[i] == 'u')
			v = json_object_new_uint64(db_to_u64(cell));
		else if (kinds[i] == 'n')
			v = json_object_new_double_s(strtod(cell, NULL), cell);
		else if (kinds[i] == 'b')
			v = json_object_new_boolean(strcmp(cell, "0") != 0);
		else
			v = json_object_new_string(cell);
		if ((cell != NULL && v == NULL) || json_object_object_add(o, names[i], v) != 0) {
			json_object_put(v);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

/* The first max rows of r as objects (tracker_row) in a new array; NULL when out of memory. */
struct json_object *
tracker_rows(const struct db_rows *r, size_t max, const char *const *names, const char *kinds)
{
	struct json_object	*a, *o;
	size_t			 i, n = r->n < max ? r->n : max;

	if ((a = json_object_new_array_ext((int)n)) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if ((o = tracker_row(r, i, names, kinds)) == NULL ||
		    json_object_array_add(a, o) != 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	return a;
}
