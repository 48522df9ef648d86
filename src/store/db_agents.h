/*
 * db_agents: what the hub knows of its agents (tracker_agents,
 * tracker_agent_429, tracker_publications, tracker_hub_starts): what each
 * said at its last claim, the versions the hub publishes, and its starts.
 */
#ifndef FM_DB_AGENTS_H
#define FM_DB_AGENTS_H
#include <stdint.h>
#include <json-c/json.h>

struct db;
struct err;

#define TRACKER_AGENT_ONLINE	60	/* seconds since its last request an agent is online */

/*
 * Records a claim of module's agent: the members of said (version,
 * launcher, update_state, update_target, update_error, update_hint:
 * strings; settings_version, rate_limited: counts; each may be absent).
 */
int	tracker_agent_seen(struct db *db, const char *module, struct json_object *said,
	    struct err *e);
/*
 * module's agent: {module, seen, online, reported, version, launcher,
 * update_state, update_target, update_error, update_hint, settings_version,
 * last_seen, current, handed_again, count_429, publication,
 * hub_settings_version}; seen false when it never claimed.
 */
int	tracker_agent_status(struct db *db, struct json_object **out, const char *module,
	    struct err *e);
/* Publishes version as the one module's agents should run. */
int	tracker_publish(struct db *db, const char *module, const char *version, struct err *e);
/* Notes that the hub started (a FastCGI master). */
int	tracker_hub_start(struct db *db, struct err *e);

#endif
