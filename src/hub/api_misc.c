/* api_misc: the hub API's notes, settings and sync runs (api-int.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "core_io.h"
#include "err.h"
#include "log.h"
#include "hub/api-int.h"
#include "store/db_batches.h"
#include "store/db_notes.h"
#include "store/db_tracker.h"

#define HUB_NOTE_MAX	4000	/* bytes of one notes field */

/* The settings the hub knows: a name, its bounds (an integer) or a URL, its default. */
static const struct {
	const char	*name;
	long		 min, max;	/* 0, 0: a URL */
	const char	*def;
} hub_settings[] = {
	{ "agent_lease_seconds", 10, 3600, "60" },
	{ "agent_poll_seconds", 1, 3600, "5" },
	{ "jira_page_size", 1, 1000, "100" },
	{ "jira_url", 0, 0, "" },
};
#define HUB_N_SETTINGS	(sizeof hub_settings / sizeof hub_settings[0])

/* POST /hub/issues/{key}/notes {project?, goal?, next_step?, risks?, text?} */
void
hub_notes(struct db *db, const struct principal *who, const char *key,
    struct json_object *body, struct core_response *resp)
{
	struct json_object	*fields, *v, *notes, *o;
	const char		*project;
	char			 stored[160], msg[300];
	struct err		 e;
	size_t			 i;
	int			 rc, present, own, temp = strncmp(key, "new:", 4) == 0;

	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	project = hub_member(body, "project", &present);
	fields = json_object_new_object();
	for (i = 0; tracker_note_fields[i] != NULL; i++) {
		if (!json_object_object_get_ex(body, tracker_note_fields[i], &v))
			continue;
		if (!json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) > HUB_NOTE_MAX) {
			hub_say(msg, sizeof msg, "%s — текст до %d байт", tracker_note_fields[i],
			    HUB_NOTE_MAX);
			goto refuse;
		}
		json_object_object_add(fields, tracker_note_fields[i], json_object_get(v));
	}
	if (json_object_object_length(fields) == 0) {
		hub_say(msg, sizeof msg, "нет полей заметок: goal, next_step, risks, text");
		goto refuse;
	}
	if (temp && project == NULL) {
		hub_say(msg, sizeof msg, "заметки к %s — только в пакете проекта: укажите project",
		    key);
		goto refuse;
	}
	err_clear(&e);
	if (!temp && project != NULL) {
		if ((rc = tracker_is_own(db, project, key, &own, &e)) != 0) {
			json_object_put(fields);
			hub_failed(resp, rc, &e);
			return;
		}
		if (!own) {
			hub_say(msg, sizeof msg, "%s не в проекте %s", key, project);
			goto refuse;
		}
	}
	snprintf(stored, sizeof stored, "%s%s%s", temp ? project : "", temp ? "/" : "", key);
	if ((rc = tracker_notes_set(db, &notes, stored, fields, who->login, &e)) != 0) {
		json_object_put(fields);
		hub_failed(resp, rc, &e);
		return;
	}
	json_object_put(fields);
	o = json_object_new_object();
	json_object_object_add(o, "key", json_object_new_string(key));
	json_object_object_add(o, "notes", notes);
	core_response_json(resp, 200, o);
	return;
refuse:
	json_object_put(fields);
	hub_refuse_msg(resp, 422, msg);
}

/* Whether value fits setting i; the reason in msg when not. */
static int
hub_setting_ok(size_t i, const char *value, char *msg, size_t len)
{
	char	*end;
	long	 n;

	if (hub_settings[i].min == 0 && hub_settings[i].max == 0) {
		if ((strncmp(value, "http://", 7) == 0 || strncmp(value, "https://", 8) == 0) &&
		    strlen(value) < 1000 && strpbrk(value, " \t\r\n") == NULL)
			return 1;
		hub_say(msg, len, "%s — адрес http:// или https://", hub_settings[i].name);
		return 0;
	}
	n = strtol(value, &end, 10);
	if (*value != '\0' && *end == '\0' && n >= hub_settings[i].min && n <= hub_settings[i].max)
		return 1;
	hub_say(msg, len, "%s — целое число от %ld до %ld", hub_settings[i].name,
	    hub_settings[i].min, hub_settings[i].max);
	return 0;
}

/* GET /hub/settings[/{name}], POST /hub/settings/{name} {value} */
void
hub_settings_route(struct db *db, const struct principal *who, const char *method,
    const char *name, struct json_object *body, struct core_response *resp)
{
	struct json_object	*all, *s, *o, *v;
	const char		*value;
	char			 msg[600], num[32];
	uint64_t		 version;
	struct err		 e;
	size_t			 i;
	int			 rc;

	for (i = 0; name != NULL && i < HUB_N_SETTINGS; i++)
		if (strcmp(hub_settings[i].name, name) == 0)
			break;
	if (name != NULL && i == HUB_N_SETTINGS) {
		hub_say(msg, sizeof msg, "настройки %s нет; есть: agent_lease_seconds, "
		    "agent_poll_seconds, jira_page_size, jira_url", name);
		hub_refuse_msg(resp, 404, msg);
		return;
	}
	err_clear(&e);
	if (strcmp(method, "POST") == 0 && name != NULL) {
		if (!(who->scopes & AUTH_SCOPE_WRITE)) {
			hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
			return;
		}
		v = body != NULL ? json_object_object_get(body, "value") : NULL;
		if (json_object_is_type(v, json_type_int)) {
			snprintf(num, sizeof num, "%lld", (long long)json_object_get_int64(v));
			value = num;
		} else
			value = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
		if (!hub_setting_ok(i, value, msg, sizeof msg)) {
			hub_refuse_msg(resp, 422, msg);
			return;
		}
		if ((rc = tracker_setting_set(db, &version, name, value, who->login, &e)) != 0) {
			hub_failed(resp, rc, &e);
			return;
		}
		log_info("hub: setting %s set by %s, version %llu", name, who->login,
		    (unsigned long long)version);
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "value", json_object_new_string(value));
		json_object_object_add(o, "version", json_object_new_uint64(version));
		core_response_json(resp, 200, o);
		return;
	}
	if (strcmp(method, "GET") != 0) {
		hub_refuse(resp, 405, HT_HUB_METHOD, method, "/hub/settings");
		return;
	}
	if ((rc = tracker_settings_get(db, &all, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	s = json_object_object_get(all, "settings");
	o = json_object_new_array();
	for (i = 0; i < HUB_N_SETTINGS; i++) {
		if (name != NULL && strcmp(name, hub_settings[i].name) != 0)
			continue;
		v = json_object_new_object();
		json_object_object_add(v, "name", json_object_new_string(hub_settings[i].name));
		json_object_object_add(v, "value", json_object_new_string(
		    json_object_object_get(s, hub_settings[i].name) != NULL ?
		    json_object_get_string(json_object_object_get(s, hub_settings[i].name)) :
		    hub_settings[i].def));
		json_object_object_add(v, "default", json_object_new_boolean(
		    json_object_object_get(s, hub_settings[i].name) == NULL));
		json_object_array_add(o, v);
	}
	json_object_object_add(all, "settings", o);
	core_response_json(resp, 200, all);
}

/* GET /hub/sync_runs?limit=N */
void
hub_sync_runs(struct db *db, const char *query, struct core_response *resp)
{
	struct json_object	*o;
	char			 limit[32], *end;
	struct err		 e;
	long			 n = 10;
	int			 rc, bad = 0;

	if (hub_query(query, "limit", limit, sizeof limit, &bad) != NULL) {
		n = strtol(limit, &end, 10);
		if (*end != '\0' || n < 1 || n > HUB_LIMIT_MAX) {
			hub_refuse(resp, 422, HT_HUB_BAD_LIMIT, limit);
			return;
		}
	}
	err_clear(&e);
	if ((rc = tracker_sync_runs(db, &o, (int)n, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	core_response_json(resp, 200, o);
}
