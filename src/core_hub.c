/* core_hub: the hub API's way in through the core (core-int.h, core_hub). */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "admit.h"
#include "auth.h"
#include "conf.h"
#include "core-int.h"
#include "core.h"
#include "err.h"
#include "fair.h"
#include "http.h"
#include "hub/hub.h"
#include "hub/texts.h"
#include "json.h"
#include "log.h"
#include "store/db_agents.h"
#include "store/db.h"

/* {"error": msg} with status. */
static void
core_hub_refuse(struct core_response *resp, int status, const char *msg)
{
	struct json_object	*o = json_object_new_object();

	if (o != NULL)
		json_object_object_add(o, "error", json_object_new_string(msg));
	core_response_json(resp, status, o);
}

void
core_hub(struct core *c, const struct core_request *req, struct core_response *resp,
    const char *path)
{
	const struct config	*cfg = c->cfg;
	struct json_object	*body = NULL;
	struct principal	 who;
	struct admit_verdict	 verdict;
	struct err		 e;
	enum json_perr		 perr = JSON_PERR_NONE;
	enum auth_result	 ar;
	const char		*method, *origin, *query;
	char			 msg[400];
	int			 n_origin = 0, entered = 0, has_body;

	err_clear(&e);
	method = http_env(req, "REQUEST_METHOD", NULL);
	origin = http_env(req, "HTTP_ORIGIN", &n_origin);
	if (n_origin > 1 || (origin != NULL && !http_origin_ok(cfg, origin))) {
		log_info("refused origin '%s'", origin != NULL ? origin : "");
		core_hub_refuse(resp, 403, "Origin not allowed");
		return;
	}
	if (!core_host_ok(cfg, http_env(req, "HTTP_HOST", NULL))) {
		core_hub_refuse(resp, 421, "Host not allowed");
		return;
	}
	if (method == NULL || (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0 &&
	    strcmp(method, "PATCH") != 0)) {
		core_response_header(resp, "Allow", "GET, POST, PATCH");
		hub_say(msg, sizeof msg, "%s не поддерживается", method != NULL ? method : "?");
		core_hub_refuse(resp, 405, msg);
		return;
	}
	if (req->body_unread || req->body_len > cfg->max_body) {
		hub_say(msg, sizeof msg, "тело запроса больше %zu байт", cfg->max_body);
		core_hub_refuse(resp, 413, msg);
		return;
	}
	if (http_repeated(req, msg, sizeof msg)) {
		core_hub_refuse(resp, 400, msg);
		return;
	}
	has_body = req->body_len > 0;
	if (has_body && !core_is_json(http_env(req, "CONTENT_TYPE", NULL))) {
		core_hub_refuse(resp, 415, "тело запроса — application/json");
		return;
	}
	ar = admit_check(c->admit, &who, c->db, http_env(req, "HTTP_AUTHORIZATION", NULL), 1,
	    &verdict, &e);
	if (ar == AUTH_MISSING || ar == AUTH_INVALID) {
		if (!core_admit_address(c, resp, NULL, http_env(req, "REMOTE_ADDR", NULL)))
			core_unauthorized(c, resp, NULL, ar == AUTH_INVALID);
		return;
	}
	if (ar != AUTH_OK) {
		log_error("token check failed: %s", e.msg);
		core_unavailable(c, resp, NULL);
		return;
	}
	resp->user_id = who.user_id;
	if (verdict.over) {
		core_over_limit(resp, NULL, 'u', verdict.full, cfg->rate_limit, verdict.start,
		    verdict.length);
		return;
	}
	if (has_body && (req->body_short ||
	    (body = json_parse_strict(req->body, req->body_len, &perr)) == NULL ||
	    !json_object_is_type(body, json_type_object))) {
		hub_say(msg, sizeof msg, "тело запроса — не JSON-объект: %s",
		    req->body_short ? "оборвано" : perr != JSON_PERR_NONE ? json_perr_text(perr) :
		    "не объект");
		core_hub_refuse(resp, 400, msg);
		goto done;
	}
	if (fair_enter(c->fair, c->slot, who.user_id) != FAIR_OK) {
		core_response_header(resp, "Retry-After", "1");
		core_hub_refuse(resp, 429, "все обработчики этой учётной записи заняты; повторите");
		goto done;
	}
	entered = 1;
	query = http_env(req, "QUERY_STRING", NULL);
	snprintf(resp->rpc_method, sizeof resp->rpc_method, "hub %s", method);
	/* the hub's calls claim and record: they go to the write node, when there is one */
	hub_handle(db_writer(c->db), cfg, &who, method, path, query, body, resp);
done:
	if (entered)
		fair_leave(c->fair, c->slot);
	json_object_put(body);
}

void
core_hub_started(struct core *c)
{
	struct err	e;

	err_clear(&e);
	if (tracker_hub_start(db_writer(c->db), &e) != 0)
		log_warn("the hub's start was not recorded (agent_status will not know of it): %s",
		    e.msg);
}
