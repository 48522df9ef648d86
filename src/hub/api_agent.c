/*
 * api_agent: the agent protocol of the hub API: claim, report, and the
 * local backend (api-int.h).  Every request for a claimed command names
 * the hand-out it is of; hub_agent_refused answers one the store refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "conf.h"
#include "core_io.h"
#include "err.h"
#include "log.h"
#include "hub/api-int.h"
#include "hub/wiki.h"
#include "store/db_agent.h"
#include "store/db_agents.h"

#define HUB_LEASE_DEFAULT	60	/* seconds an agent has to report a command */
#define HUB_LEASE_MAX		3600

uint64_t
hub_agent_id(struct json_object *body, const char *name)
{
	struct json_object	*v;

	if (body == NULL || !json_object_object_get_ex(body, name, &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0)
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

/* POST /hub/agent/claim {lease_seconds?} */
static void
hub_agent_claim(struct db *db, struct json_object *body, struct core_response *resp)
{
	struct json_object	*cmd, *o, *v;
	int64_t			 lease = HUB_LEASE_DEFAULT;
	const char		*module;
	struct err		 e;
	int			 rc, present;

	if (body != NULL && json_object_object_get_ex(body, "lease_seconds", &v)) {
		if (!json_object_is_type(v, json_type_int) || (lease = json_object_get_int64(v)) < 1 ||
		    lease > HUB_LEASE_MAX) {
			hub_refuse_msg(resp, 422, "lease_seconds — целое число от 1 до 3600");
			return;
		}
	}
	err_clear(&e);
	module = body != NULL ? hub_member(body, "module", &present) : NULL;
	if (module == NULL || strcmp(module, "wiki") != 0)
		module = "jira";
	if ((rc = tracker_agent_seen(db, module, body, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	if ((rc = tracker_claim(db, &cmd, (unsigned)lease, strcmp(module, "wiki") == 0, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	if (cmd != NULL)
		log_info("hub: command %s (%s) handed out, time %s",
		    json_object_get_string(json_object_object_get(cmd, "id")),
		    json_object_get_string(json_object_object_get(cmd, "type")),
		    json_object_get_string(json_object_object_get(cmd, "handouts")));
	o = json_object_new_object();
	json_object_object_add(o, "command", cmd);
	core_response_json(resp, 200, o);
}

void
hub_agent_not_claimed(struct core_response *resp, uint64_t id, const char *state)
{
	char	msg[200];

	if (state[0] == '\0')
		hub_say(msg, sizeof msg, "команды %llu нет", (unsigned long long)id);
	else
		hub_say(msg, sizeof msg, "команда %llu не у агента: она %s",
		    (unsigned long long)id, state);
	hub_refuse_msg(resp, state[0] == '\0' ? 404 : 409, msg);
}

/* The refused request as its 409 names it, and the word that agrees with it. */
static const struct {
	const char	*what, *taken;
} hub_asks[HUB_ASK__MAX] = {
	{ "часть", "принята" },		/* HUB_ASK_PART */
	{ "страница", "принята" },	/* HUB_ASK_PAGE */
	{ "отчёт", "принят" },		/* HUB_ASK_REPORT */
	{ "запрос", "принят" },		/* HUB_ASK_RUN */
};

int
hub_agent_refused(struct core_response *resp, enum hub_ask ask, uint64_t id,
    const struct tracker_handout *h)
{
	char	msg[200];

	if (strcmp(h->state, "claimed") != 0) {
		hub_agent_not_claimed(resp, id, h->state);
		return 1;
	}
	if (h->current == h->handout)
		return 0;
	if (h->handout < h->current)
		hub_say(msg, sizeof msg, "%s от выдачи %llu не %s: команда %llu выдана заново, "
		    "сейчас выдача %llu", hub_asks[ask].what, (unsigned long long)h->handout,
		    hub_asks[ask].taken, (unsigned long long)id, (unsigned long long)h->current);
	else
		hub_say(msg, sizeof msg, "%s от выдачи %llu не %s: у команды %llu сейчас выдача "
		    "%llu", hub_asks[ask].what, (unsigned long long)h->handout, hub_asks[ask].taken,
		    (unsigned long long)id, (unsigned long long)h->current);
	hub_refuse_msg(resp, 409, msg);
	return 1;
}

/* POST /hub/agent/report {command, handout, state: done|failed, error?, result?} */
static void
hub_agent_report(struct db *db, struct json_object *body, struct core_response *resp)
{
	struct json_object	*result = NULL, *o;
	struct tracker_handout	 h = { hub_agent_id(body, "handout"), 0, "" };
	const char		*state, *error;
	uint64_t		 id = hub_agent_id(body, "command");
	struct err		 e;
	int			 rc, present;

	state = hub_member(body, "state", &present);
	error = hub_member(body, "error", &present);
	if (id == 0 || h.handout == 0 || state == NULL || (strcmp(state, "done") != 0 &&
	    strcmp(state, "failed") != 0)) {
		hub_refuse_msg(resp, 422, "нужны command (id команды), " HUB_HANDOUT_NEEDED
		    " и state: done или failed");
		return;
	}
	if (strcmp(state, "failed") == 0 && (error == NULL || error[0] == '\0')) {
		hub_refuse_msg(resp, 422, "у failed нужна причина: error");
		return;
	}
	if (json_object_object_get_ex(body, "result", &result) && result != NULL &&
	    !json_object_is_type(result, json_type_object)) {
		hub_refuse_msg(resp, 422, "result — объект");
		return;
	}
	err_clear(&e);
	rc = tracker_report(db, id, &h, strcmp(state, "done") == 0, error, result, &e);
	if (rc == ERR_INVALID && hub_agent_refused(resp, HUB_ASK_REPORT, id, &h))
		return;
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "state", json_object_new_string(state));
	core_response_json(resp, 200, o);
}

/* POST /hub/agent/local {command, handout}: the local backend runs a claimed command. */
static void
hub_agent_local(struct db *db, const struct config *cfg, uint64_t id, uint64_t handout,
    struct core_response *resp)
{
	struct json_object	*o;
	struct tracker_handout	 h = { handout, 0, "" };
	char			*why = NULL;
	struct err		 e;
	int			 rc, done;

	err_clear(&e);
	rc = tracker_local_run(db, id, &h, &done, &why, (uint64_t)cfg->tracker_copies_mb << 20,
	    &e);
	if (rc == ERR_INVALID && hub_agent_refused(resp, HUB_ASK_RUN, id, &h))
		return;
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "state", json_object_new_string(done ? "done" : "failed"));
	json_object_object_add(o, "error", why != NULL ? json_object_new_string(why) : NULL);
	free(why);
	core_response_json(resp, 200, o);
}

/* GET /hub/agent[?module=jira|wiki] */
static void
hub_agent_status(struct db *db, const char *module, struct core_response *resp)
{
	struct json_object	*o;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if ((rc = tracker_agent_status(db, &o, module, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	core_response_json(resp, 200, o);
}

/* POST /hub/agent/publish {module?, version} */
static void
hub_agent_publish(struct db *db, struct json_object *body, struct core_response *resp)
{
	struct json_object	*o;
	const char		*version;
	struct err		 e;
	int			 rc, present;

	version = body != NULL ? hub_member(body, "version", &present) : NULL;
	if (version == NULL || version[0] == '\0' || strlen(version) > 64 ||
	    strspn(version, "0123456789.") != strlen(version)) {
		hub_refuse_msg(resp, 422, "version — номер версии агента: цифры и точки");
		return;
	}
	err_clear(&e);
	if ((rc = tracker_publish(db, "jira", version, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	log_info("hub: agent version %s published", version);
	o = json_object_new_object();
	json_object_object_add(o, "module", json_object_new_string("jira"));
	json_object_object_add(o, "version", json_object_new_string(version));
	core_response_json(resp, 200, o);
}

void
hub_agent_route(struct db *db, const struct config *cfg, const struct principal *who,
    const char *method, const char *path, const char *query, struct json_object *body,
    struct core_response *resp)
{
	uint64_t	id = hub_agent_id(body, "command"), handout = hub_agent_id(body, "handout");
	char		module[16];
	int		bad = 0;

	if (strcmp(path, "agent") == 0 && strcmp(method, "GET") == 0) {
		hub_agent_status(db, hub_query(query, "module", module, sizeof module, &bad) != NULL &&
		    strcmp(module, "wiki") == 0 ? "wiki" : "jira", resp);
		return;
	}
	if ((strcmp(path, "agent/file") == 0 || strcmp(path, "agent/file/content") == 0) &&
	    strcmp(method, "GET") == 0) {
		if (!(who->scopes & AUTH_SCOPE_WRITE))
			hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		else
			hub_agent_file(db, path, query, resp);
		return;
	}
	if (strcmp(method, "POST") != 0) {
		core_response_header(resp, "Allow", "POST");
		hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		return;
	}
	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	if (strcmp(path, "agent/claim") == 0)
		hub_agent_claim(db, body, resp);
	else if (strcmp(path, "agent/report") == 0)
		hub_agent_report(db, body, resp);
	else if (strcmp(path, "agent/publish") == 0)
		hub_agent_publish(db, body, resp);
	else if (strcmp(path, "agent/local") == 0 || strcmp(path, "agent/wiki_git") == 0) {
		if (id == 0 || handout == 0)
			hub_refuse_msg(resp, 422, "нужны command (id команды) и " HUB_HANDOUT_NEEDED);
		else if (strcmp(path, "agent/local") == 0)
			hub_agent_local(db, cfg, id, handout, resp);
		else
			hub_wiki_git(db, cfg, id, handout, resp);
	}
	else if (strcmp(path, "agent/jira_issues") == 0)
		hub_jira_issues(db, body, resp);
	else if (strcmp(path, "agent/jira_fetch") == 0)
		hub_jira_fetch(db, cfg, body, resp);
	else if (strcmp(path, "agent/wiki_pages") == 0)
		hub_wiki_pages(db, body, resp);
	else if (strcmp(path, "agent/wiki_fetch") == 0)
		hub_wiki_fetch_part(db, cfg, body, resp);
	else
		hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
}
