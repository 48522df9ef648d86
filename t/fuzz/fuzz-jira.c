/* fuzz-jira: an issue of Jira's search as the Jira backend converts it for the hub's mirror. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fuzz.h"
#include "json.h"
#include "sdlc/jira_backend.h"
#include "sdlc/jira_backend-int.h"
#include "store/db-internal.h"

/* Characters of the UTF-8 text s. */
static size_t
chars(const char *s)
{
	size_t	n;

	json_utf8_take(s, strlen(s), (size_t)-1, &n);
	return n;
}

/* Whether member key of o is absent, or a string of at most max characters. */
static int
fits(struct json_object *o, const char *key, size_t max)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v))
		return 1;
	return json_object_is_type(v, json_type_string) && chars(json_object_get_string(v)) <= max;
}

static void
check_list(struct json_object *o, const char *name)
{
	struct json_object	*list = json_get(o, name), *it;
	const char		*kind;
	size_t			 i;

	FUZZ_ASSERT(json_object_is_type(list, json_type_array));
	for (i = 0; i < json_object_array_length(list); i++) {
		it = json_object_array_get_idx(list, i);
		if (strcmp(name, "comments") == 0) {
			FUZZ_ASSERT(json_object_get_int64(json_get(it, "id")) > 0);
			FUZZ_ASSERT(tracker_time_ok(json_get_str(it, "created")) && fits(it, "author", 255));
			FUZZ_ASSERT(json_get_str(it, "body") != NULL);
		} else if (strcmp(name, "attachments") == 0) {
			FUZZ_ASSERT(json_object_get_int64(json_get(it, "id")) > 0);
			FUZZ_ASSERT(json_get_str(it, "name") != NULL && json_get_str(it, "name")[0] != '\0');
			FUZZ_ASSERT(fits(it, "name", 255) && fits(it, "mime", 255) &&
			    fits(it, "author", 255) && tracker_time_ok(json_get_str(it, "created")));
		} else if (strcmp(name, "links") == 0) {
			FUZZ_ASSERT(json_get_str(it, "type") != NULL && json_get_str(it, "outward") != NULL &&
			    json_get_str(it, "inward") != NULL);
			FUZZ_ASSERT((json_get_str(it, "to") == NULL) != (json_get_str(it, "from") == NULL));
		} else {
			kind = json_get_str(it, "kind");
			FUZZ_ASSERT(kind != NULL && strstr("status description due start end field",
			    kind) != NULL && tracker_time_ok(json_get_str(it, "at")));
			FUZZ_ASSERT((strcmp(kind, "field") == 0) == (json_get_str(it, "field") != NULL));
			FUZZ_ASSERT(fits(it, "author", 255) && fits(it, "field", 255) &&
			    fits(it, "from", 4000) && fits(it, "to", 4000));
		}
	}
}

/*
 * The input is one issue as Jira's search answers it, any bytes.  When
 * it is JSON, the conversion is no issue (NULL) or one the hub takes: an
 * id, a key, created and updated in UTC, every string within its column,
 * comments, attachments, links and journal entries each whole.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jira_backend	 jb;
	struct json_object	*in, *o;
	enum json_perr		 perr;

	if ((in = json_parse_strict((const char *)data, size, &perr)) == NULL)
		return 0;
	memset(&jb, 0, sizeof jb);
	strcpy(jb.sp_field, "customfield_10002");
	strcpy(jb.sprint_field, "customfield_10001");
	if ((o = jb_issue_json(&jb, in, 7)) != NULL) {
		FUZZ_ASSERT(json_object_get_int64(json_get(o, "id")) > 0);
		FUZZ_ASSERT(json_get_str(o, "key") != NULL && json_get_str(o, "summary") != NULL &&
		    json_get_str(o, "status") != NULL);
		FUZZ_ASSERT(tracker_time_ok(json_get_str(o, "created")));
		FUZZ_ASSERT(json_get(o, "updated") == NULL || tracker_time_ok(json_get_str(o, "updated")));
		FUZZ_ASSERT(fits(o, "summary", 1000) && fits(o, "status", 64) && fits(o, "type", 64) &&
		    fits(o, "priority", 64) && fits(o, "assignee", 255) && fits(o, "reporter", 255) &&
		    fits(o, "sprint", 255));
		FUZZ_ASSERT(json_get(o, "due") == NULL || strlen(json_get_str(o, "due")) == 10);
		check_list(o, "comments");
		check_list(o, "attachments");
		check_list(o, "links");
		check_list(o, "changes");
		FUZZ_ASSERT(json_object_to_json_string(o) != NULL);
		json_object_put(o);
	}
	json_object_put(in);
	return 0;
}
