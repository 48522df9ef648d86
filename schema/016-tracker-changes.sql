-- 016-tracker-changes: the tracker's change journal, which the change feed
-- (GET /hub/changes, the `changes` tool) and the card's «изменения» read.
-- One row per change of one field of an issue: kind is status,
-- description, due (the due date), start and end (the planned dates) or
-- field (any other: field names it); from_value and to_value are the
-- values as the tracker gave them, their first 4,000 characters (NULL:
-- empty).  A backend writes it: the
-- local one as it applies ensure_fields, a tracker's from its changelog;
-- `forgemcp tracker import` loads one for fixtures.  Comments are not
-- journalled here: the feed reads them from tracker_comments.
CREATE TABLE tracker_changes (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	issue_id BIGINT UNSIGNED NOT NULL,
	changed_at DATETIME(3) NOT NULL,
	author VARCHAR(255) NOT NULL,
	kind ENUM('status', 'description', 'due', 'start', 'end', 'field') NOT NULL,
	field VARCHAR(255) NULL,
	from_value TEXT NULL,
	to_value TEXT NULL,
	KEY tracker_changes_issue (issue_id, changed_at),
	KEY tracker_changes_at (changed_at),
	CONSTRAINT tracker_changes_issue_fk FOREIGN KEY (issue_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The feed of a period reads comments by their time.
ALTER TABLE tracker_comments ADD KEY tracker_comments_created (created_at);
