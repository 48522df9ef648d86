/*
 * db_agile: a project's board, its sprints and backlog (db_tracker.h,
 * schema/018-tracker-agile.sql), and the local backend's sprint and rank
 * commands.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db.h"
#include "store/db_tracker.h"

#define AGILE_CLOSED_SHOWN	10	/* closed sprints in GET /hub/agile */

/* An issue's column position on board ?, and whether it is done. */
#define COL_POS(board) \
    "(SELECT c.position FROM tracker_board_columns c WHERE c.board_id = " board \
    " AND c.status = i.status)"
#define DONE(board) \
    "IF(EXISTS (SELECT 1 FROM tracker_board_columns c WHERE c.board_id = " board ")," \
    " COALESCE(" COL_POS(board) " = (SELECT MAX(c.position) FROM tracker_board_columns c" \
    "  WHERE c.board_id = " board "), 0)," \
    " i.status IN ('Готово', 'Done', 'Закрыта', 'Closed', 'Resolved', 'Решена'))"

static const char SQL_BOARD[] =
    "SELECT board_id, board_type FROM tracker_projects WHERE label = ?";
static const char SQL_SPRINTS[] =
    "SELECT s.name, s.state, DATE_FORMAT(s.start_date, '%Y-%m-%d'),"
    " DATE_FORMAT(s.end_date, '%Y-%m-%d'), s.goal, COUNT(x.id), COALESCE(SUM(x.done), 0),"
    " " DB_POINTS("SUM(x.story_points)") ", " DB_POINTS("SUM(IF(x.done, x.story_points, 0))") ","
    " COALESCE(SUM(x.id IS NOT NULL AND x.story_points IS NULL), 0)"
    " FROM tracker_sprints s LEFT JOIN (SELECT i.id, i.sprint, i.story_points, " DONE("?")
    "  AS done FROM tracker_issues i JOIN tracker_issue_labels l ON l.issue_id = i.id"
    "  AND l.label = ?) x ON x.sprint = s.name"
    " WHERE s.board_id = ? GROUP BY s.id"
    " ORDER BY FIELD(s.state, 'active', 'future', 'closed'),"
    " IF(s.state = 'closed', COALESCE(s.closed_at, s.end_date), NULL) DESC,"
    " s.start_date, s.id";
static const char SQL_SPRINT_ISSUES[] =
    "SELECT i.issue_key, i.summary, i.status, COALESCE((SELECT c.column_name FROM"
    " tracker_board_columns c WHERE c.board_id = ? AND c.status = i.status), i.status),"
    " i.assignee, " DB_POINTS("i.story_points")
    " FROM tracker_issues i JOIN tracker_issue_labels l ON l.issue_id = i.id AND l.label = ?"
    " WHERE i.sprint = ? ORDER BY COALESCE(" COL_POS("?") ", 1000000), i.status,"
    " i.issue_rank IS NULL, i.issue_rank, i.id";
static const char SQL_BACKLOG[] =
    "SELECT i.issue_key, i.summary, i.status, i.assignee, " DB_POINTS("i.story_points")
    " FROM tracker_issues i JOIN tracker_issue_labels l ON l.issue_id = i.id AND l.label = ?"
    " WHERE NOT " DONE("?") " AND (i.sprint IS NULL OR NOT EXISTS (SELECT 1 FROM"
    "  tracker_sprints s WHERE s.board_id = ? AND s.name = i.sprint AND s.state <> 'closed'))"
    " ORDER BY i.issue_rank IS NULL, i.issue_rank, i.id";

/*
 * The board of project label into *board (0: none) and a new *out with it
 * as "board" ({id, type} or null); ERR_NOTFOUND for no such project.
 */
static int
agile_board(struct db *db, const char *label, uint64_t *board, struct json_object **out,
    struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*b = NULL;
	int			 rc;

	*board = 0;
	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_BOARD, &r, NULL, NULL, e, "s", label)) != 0)
		return rc;
	if (r.n == 0)
		rc = ERR_NOTFOUND;
	else if (db_rows_get(&r, 0, 0) != NULL) {
		*board = db_to_u64(db_rows_get(&r, 0, 0));
		b = json_object_new_object();
		json_object_object_add(b, "id", json_object_new_uint64(*board));
		json_object_object_add(b, "type", db_rows_get(&r, 0, 1) != NULL ?
		    json_object_new_string(db_rows_get(&r, 0, 1)) : NULL);
	}
	db_rows_release(&r);
	if (rc == 0) {
		*out = json_object_new_object();
		json_object_object_add(*out, "board", b);
	}
	return rc;
}

int
tracker_agile(struct db *db, struct json_object **out, const char *label, struct err *e)
{
	static const char *const names[] = { "name", "state", "start", "end", "goal", "issues",
	    "done", "sp", "sp_done", "unestimated", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*list, *s;
	uint64_t		 id;
	size_t			 i, closed = 0;
	int			 rc;

	if ((rc = agile_board(db, label, &id, out, e)) != 0 || id == 0)
		return rc;
	if ((rc = db_run(db, DB_RETRY, SQL_SPRINTS, &r, NULL, NULL, e, "uuusu", id, id, id,
	    label, id)) != 0)
		goto fail;
	list = json_object_new_array();
	json_object_object_add(*out, "sprints", list);
	for (i = 0; i < r.n; i++) {
		/* closed ones come last, latest first: the first AGILE_CLOSED_SHOWN of them */
		if (strcmp(db_rows_get(&r, i, 1), "closed") == 0 && closed++ >= AGILE_CLOSED_SHOWN)
			continue;
		if ((s = tracker_row(&r, i, names, "sssssuunnu")) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
		json_object_array_add(list, s);
	}
	json_object_object_add(*out, "closed_more", json_object_new_uint64(
	    closed > AGILE_CLOSED_SHOWN ? closed - AGILE_CLOSED_SHOWN : 0));
	db_rows_release(&r);
	return 0;
fail:
	db_rows_release(&r);
	json_object_put(*out);
	*out = NULL;
	return rc;
}

int
tracker_sprint(struct db *db, struct json_object **out, const char *label, const char *name,
    struct err *e)
{
	static const char *const names[] = { "key", "summary", "status", "column", "assignee",
	    "story_points", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*all = NULL, *sprints, *s, *found = NULL, *a;
	size_t			 i;
	int			 rc;

	*out = NULL;
	if ((rc = tracker_agile(db, &all, label, e)) != 0)
		return rc;
	sprints = json_object_object_get(all, "sprints");
	for (i = 0; found == NULL && i < json_object_array_length(sprints); i++) {
		s = json_object_array_get_idx(sprints, i);
		if (name != NULL ? strcmp(json_object_get_string(json_object_object_get(s,
		    "name")), name) == 0 : strcmp(json_object_get_string(json_object_object_get(s,
		    "state")), "active") == 0)
			found = s;
	}
	if (found != NULL) {
		if ((rc = db_run(db, DB_RETRY, SQL_SPRINT_ISSUES, &r, NULL, NULL, e, "ussu",
		    json_object_get_uint64(json_object_object_get(json_object_object_get(all,
		    "board"), "id")), label, json_object_get_string(json_object_object_get(found,
		    "name")), json_object_get_uint64(json_object_object_get(
		    json_object_object_get(all, "board"), "id")))) != 0) {
			json_object_put(all);
			return rc;
		}
		if ((a = tracker_rows(&r, r.n, names, "ssssss")) == NULL)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		else
			json_object_object_add(all, "issues", a);
		db_rows_release(&r);
		json_object_object_add(all, "sprint", json_object_get(found));
	} else
		json_object_object_add(all, "sprint", NULL);
	*out = all;
	return rc;
}

int
tracker_backlog(struct db *db, struct json_object **out, const char *label, int limit,
    struct err *e)
{
	static const char *const names[] = { "key", "summary", "status", "assignee",
	    "story_points", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*a;
	uint64_t		 id;
	int			 rc;

	if ((rc = agile_board(db, label, &id, out, e)) != 0 || id == 0)
		return rc;
	if ((rc = db_run(db, DB_RETRY, SQL_BACKLOG, &r, NULL, NULL, e, "suuuu", label, id, id, id,
	    id)) != 0)
		goto fail;
	if ((a = tracker_rows(&r, r.n < (size_t)limit ? r.n : (size_t)limit, names,
	    "sssss")) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	json_object_object_add(*out, "issues", a);
	json_object_object_add(*out, "total", json_object_new_uint64(r.n));
	db_rows_release(&r);
	return 0;
fail:
	db_rows_release(&r);
	json_object_put(*out);
	*out = NULL;
	return rc;
}

/* ---- the local backend's sprint and rank commands ---- */

/* written, not only locked: on Galera two nodes then collide (020-written-locks.sql) */
static const char SQL_SPRINT_TOUCH[] =
    "UPDATE tracker_sprints SET lock_count = lock_count + 1 WHERE board_id = ? AND name = ?";
static const char SQL_SPRINT_STATE[] =
    "SELECT state FROM tracker_sprints WHERE board_id = ? AND name = ? FOR UPDATE";
static const char SQL_SPRINT_SET[] =
    "UPDATE tracker_issues SET sprint = ?, updated_at = UTC_TIMESTAMP(3) WHERE issue_key = ?";
static const char SQL_SPRINT_META[] =
    "INSERT INTO tracker_sprints (board_id, name, goal, start_date, end_date)"
    " VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE goal = COALESCE(VALUES(goal), goal),"
    " start_date = COALESCE(VALUES(start_date), start_date),"
    " end_date = COALESCE(VALUES(end_date), end_date)";
static const char SQL_SPRINT_START[] =
    "UPDATE tracker_sprints SET state = 'active', closed_at = NULL"
    " WHERE board_id = ? AND name = ?";
static const char SQL_SPRINT_CLOSE[] =
    "UPDATE tracker_sprints SET state = 'closed', closed_at = UTC_TIMESTAMP(3)"
    " WHERE board_id = ? AND name = ?";
/* what is not done goes back to the backlog: the issues of the board's projects only */
static const char SQL_SPRINT_UNDONE[] =
    "UPDATE tracker_issues i SET i.sprint = NULL WHERE i.sprint = ? AND NOT " DONE("?")
    " AND EXISTS (SELECT 1 FROM tracker_issue_labels l JOIN tracker_projects p"
    "  ON p.label = l.label WHERE l.issue_id = i.id AND p.board_id = ?)";
static const char SQL_RANKED[] =
    "SELECT issue_key FROM tracker_issues WHERE issue_rank IS NOT NULL OR issue_key IN (?, ?)"
    " ORDER BY issue_rank IS NULL, issue_rank, id FOR UPDATE";
static const char SQL_RANK_SET[] =
    "UPDATE tracker_issues SET issue_rank = ? WHERE issue_key = ?";

static const char *
agile_str(struct json_object *p, const char *name)
{
	struct json_object	*v;

	return json_object_object_get_ex(p, name, &v) && v != NULL ? json_object_get_string(v) :
	    NULL;
}

/* ensure_rank: key moved before or after the other; every ranked issue renumbered. */
static int
agile_rank(struct db *db, struct json_object *p, char **why, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*key = agile_str(p, "key"), *before = agile_str(p, "before"),
			*other = before != NULL ? before : agile_str(p, "after");
	const char	**order = NULL;
	size_t		 i, n = 0;
	int		 rc, found = 0;

	if (other == NULL || strcmp(other, key) == 0) {
		*why = strdup("ensure_rank: нужен before или after — другая задача");
		return 0;
	}
	if ((rc = db_run(db, DB_ONCE, SQL_RANKED, &r, NULL, NULL, e, "ss", key, other)) != 0)
		return rc;
	if ((order = calloc(r.n + 1, sizeof *order)) == NULL) {
		db_rows_release(&r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < r.n; i++) {
		if (strcmp(db_rows_get(&r, i, 0), key) == 0) {
			found++;
			continue;
		}
		if (strcmp(db_rows_get(&r, i, 0), other) == 0) {
			found++;
			if (before == NULL)
				order[n++] = other;
			order[n++] = key;
			if (before == NULL)
				continue;
		}
		order[n++] = db_rows_get(&r, i, 0);
	}
	if (found < 2) {
		if (asprintf(why, "задачи %s нет в трекере", found == 0 ? key : other) < 0)
			*why = NULL;
	}
	for (i = 0; found == 2 && rc == 0 && i < n; i++)
		rc = db_run(db, DB_ONCE, SQL_RANK_SET, NULL, NULL, NULL, e, "is",
		    (int64_t)(i + 1) * 1024, order[i]);
	free(order);
	db_rows_release(&r);
	return rc;
}

int
tracker_local_agile(struct db *db, const char *type, const char *author,
    struct json_object *p, char **why, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*v, *sp;
	const char		*sprint = agile_str(p, "sprint"), *state;
	uint64_t		 board = 0, changed = 0;
	int			 rc;

	if (json_object_object_get_ex(p, "board_id", &v))
		board = (uint64_t)json_object_get_int64(v);
	if (strcmp(type, "ensure_rank") == 0)
		return agile_rank(db, p, why, e);
	if (board == 0) {
		if (asprintf(why, "у %s нет board_id: его добавляет хаб в пакет проекта с доской",
		    type) < 0)
			*why = NULL;
		return 0;
	}
	if (strcmp(type, "ensure_sprint_meta") == 0)
		return db_run(db, DB_ONCE, SQL_SPRINT_META, NULL, NULL, NULL, e, "ussss", board,
		    sprint, agile_str(p, "goal"), agile_str(p, "start"), agile_str(p, "end"));
	if ((rc = db_run(db, DB_ONCE, SQL_SPRINT_TOUCH, NULL, NULL, NULL, e, "us", board,
	    sprint)) != 0 || (rc = db_run(db, DB_ONCE, SQL_SPRINT_STATE, &r, NULL, NULL, e, "us",
	    board, sprint)) != 0)
		return rc;
	state = r.n > 0 ? db_rows_get(&r, 0, 0) : NULL;
	if (state == NULL) {
		if (asprintf(why, "спринта «%s» нет на доске %llu: его заводит ensure_sprint_meta",
		    sprint, (unsigned long long)board) < 0)
			*why = NULL;
	} else if (strcmp(type, "ensure_sprint") == 0 && strcmp(state, "closed") == 0) {
		if (asprintf(why, "спринт «%s» закрыт", sprint) < 0)
			*why = NULL;
	} else if (strcmp(type, "ensure_sprint") == 0) {
		sp = json_object_new_object();
		json_object_object_add(sp, "sprint", json_object_new_string(sprint));
		rc = tracker_journal_fields(db, agile_str(p, "key"), author, sp, e);
		json_object_put(sp);
		if (rc == 0)
			rc = db_run(db, DB_ONCE, SQL_SPRINT_SET, NULL, &changed, NULL, e, "ss", sprint,
			    agile_str(p, "key"));
		if (rc == 0 && changed == 0 && asprintf(why, "задачи %s нет в трекере",
		    agile_str(p, "key")) < 0)
			*why = NULL;
	} else if (strcmp(agile_str(p, "state"), "active") == 0)
		rc = db_run(db, DB_ONCE, SQL_SPRINT_START, NULL, NULL, NULL, e, "us", board, sprint);
	else if ((rc = db_run(db, DB_ONCE, SQL_SPRINT_CLOSE, NULL, NULL, NULL, e, "us", board,
	    sprint)) == 0)
		rc = db_run(db, DB_ONCE, SQL_SPRINT_UNDONE, NULL, NULL, NULL, e, "suuuu", sprint,
		    board, board, board, board);
	db_rows_release(&r);
	return rc;
}

/* ---- fixtures ---- */

static const char SQL_IMPORT_SPRINT[] =
    "INSERT INTO tracker_sprints (board_id, name, state, goal, start_date, end_date, closed_at)"
    " VALUES (?, ?, ?, ?, ?, ?, IF(? = 'closed', CONCAT(?, ' 00:00:00'), NULL))"
    " ON DUPLICATE KEY UPDATE state = VALUES(state), goal = VALUES(goal),"
    " start_date = VALUES(start_date), end_date = VALUES(end_date),"
    " closed_at = VALUES(closed_at)";
static const char SQL_IMPORT_COLUMN[] =
    "REPLACE INTO tracker_board_columns (board_id, status, position, column_name)"
    " VALUES (?, ?, ?, ?)";
static const char SQL_IMPORT_RANK[] =
    "UPDATE tracker_issues SET issue_rank = ? WHERE id = ?";

int
tracker_import_agile(struct db *db, struct json_object *project, uint64_t board, size_t at,
    struct err *e)
{
	struct json_object	*list, *s, *sts;
	const char		*name, *state;
	size_t			 i, j;
	int			 rc = 0;

	for (i = 0; i < 2; i++) {
		list = json_object_object_get(project, i == 0 ? "sprints" : "columns");
		if (list != NULL && !json_object_is_type(list, json_type_array))
			return err_set(e, ERR_INVALID, "projects[%zu]: sprints and columns are "
			    "arrays", at);
	}
	list = json_object_object_get(project, "sprints");
	for (i = 0; list != NULL && rc == 0 && i < json_object_array_length(list); i++) {
		s = json_object_array_get_idx(list, i);
		name = agile_str(s, "name");
		state = agile_str(s, "state") != NULL ? agile_str(s, "state") : "future";
		if (board == 0 || name == NULL || (strcmp(state, "future") != 0 &&
		    strcmp(state, "active") != 0 && strcmp(state, "closed") != 0))
			return err_set(e, ERR_INVALID, "projects[%zu]: sprints[%zu]: a board_id, a "
			    "name and a state (future, active or closed) are needed", at, i);
		rc = db_run(db, DB_ONCE, SQL_IMPORT_SPRINT, NULL, NULL, NULL, e, "usssss" "ss",
		    board, name, state, agile_str(s, "goal"), agile_str(s, "start"),
		    agile_str(s, "end"), state, agile_str(s, "end"));
	}
	list = json_object_object_get(project, "columns");
	for (i = 0; list != NULL && rc == 0 && i < json_object_array_length(list); i++) {
		s = json_object_array_get_idx(list, i);
		sts = json_object_object_get(s, "statuses");
		if (board == 0 || agile_str(s, "name") == NULL ||
		    !json_object_is_type(sts, json_type_array))
			return err_set(e, ERR_INVALID, "projects[%zu]: columns[%zu]: a board_id, a "
			    "name and statuses are needed", at, i);
		for (j = 0; rc == 0 && j < json_object_array_length(sts); j++)
			rc = db_run(db, DB_ONCE, SQL_IMPORT_COLUMN, NULL, NULL, NULL, e, "usus",
			    board, json_object_get_string(json_object_array_get_idx(sts, j)),
			    (uint64_t)i, agile_str(s, "name"));
	}
	return rc;
}

int
tracker_import_rank(struct db *db, struct json_object *issue, uint64_t id, struct err *e)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(issue, "rank", &v) || v == NULL)
		return 0;
	return db_run(db, DB_ONCE, SQL_IMPORT_RANK, NULL, NULL, NULL, e, "iu",
	    json_object_get_int64(v), id);
}
