-- 018-tracker-agile: a board's sprints and columns, and the backlog's
-- order (the sdlc-jira tools sprints, sprint and backlog; GET /hub/agile).
-- A project's board is tracker_projects.board_id; its issues are the
-- project's own (its label), in a sprint by the sprint's name
-- (tracker_issues.sprint).
CREATE TABLE tracker_sprints (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	board_id BIGINT UNSIGNED NOT NULL,
	name VARCHAR(255) NOT NULL,
	state ENUM('future', 'active', 'closed') NOT NULL DEFAULT 'future',
	goal TEXT NULL,
	start_date DATE NULL,
	end_date DATE NULL,
	closed_at DATETIME(3) NULL,
	UNIQUE KEY tracker_sprints_name (board_id, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The board's columns: each status the column it shows in, columns left
-- to right by position; the last column is done.  A board without any
-- shows each status as its own column and takes the usual names of done
-- (Готово, Done, Закрыта, Closed, Resolved, Решена) as done.
CREATE TABLE tracker_board_columns (
	board_id BIGINT UNSIGNED NOT NULL,
	status VARCHAR(64) NOT NULL,
	position INT UNSIGNED NOT NULL,
	column_name VARCHAR(255) NOT NULL,
	PRIMARY KEY (board_id, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The backlog's order: lower first; issues without one come last, by id.
ALTER TABLE tracker_issues
	ADD COLUMN issue_rank BIGINT NULL AFTER story_points,
	ADD KEY tracker_issues_rank (issue_rank);
