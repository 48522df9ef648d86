-- 005-forge-catalogue: the issue lifecycle (edit versions and an activity
-- log), pull request metadata (draft, linked issue, closing declarations),
-- the inbox and repository variables.  All DATETIME columns hold UTC.

-- edit_version counts metadata edits (title, body); a write that depends
-- on what the caller saw passes the version it read.
ALTER TABLE issues
	ADD COLUMN edit_version INT UNSIGNED NOT NULL DEFAULT 1;

-- closing_issue_numbers: the local issue numbers the description declares
-- closed ("Closes #3, #4"), comma-separated in order of first appearance,
-- NULL for none.  It is recomputed whenever the description changes.
-- linked_issue only links an issue; it never closes one.
ALTER TABLE pull_requests
	ADD COLUMN edit_version INT UNSIGNED NOT NULL DEFAULT 1,
	ADD COLUMN draft TINYINT(1) NOT NULL DEFAULT 0,
	ADD COLUMN linked_issue INT UNSIGNED NULL,
	ADD COLUMN closing_issue_numbers TEXT CHARACTER SET ascii NULL;

-- The activity of an issue or a pull request, oldest first by id: what
-- happened, who did it, and for a comment which one.  cause says why a
-- state changed: 'user' for a tool call, 'merge' when the merge of pull
-- request source_number closed an issue.
CREATE TABLE events (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	issue_id BIGINT UNSIGNED NULL,
	pull_request_id BIGINT UNSIGNED NULL,
	actor_id BIGINT UNSIGNED NOT NULL,
	kind ENUM('opened','edited','closed','reopened','commented','merged') NOT NULL,
	cause ENUM('user','merge') NOT NULL DEFAULT 'user',
	source_number INT UNSIGNED NULL,
	comment_id BIGINT UNSIGNED NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	KEY events_issue (issue_id, id),
	KEY events_pull_request (pull_request_id, id),
	KEY events_actor (actor_id),
	CONSTRAINT events_one_parent CHECK ((issue_id IS NULL) <> (pull_request_id IS NULL)),
	CONSTRAINT events_issue_fk FOREIGN KEY (issue_id) REFERENCES issues (id) ON DELETE CASCADE,
	CONSTRAINT events_pull_request_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE,
	CONSTRAINT events_actor_fk FOREIGN KEY (actor_id) REFERENCES users (id),
	CONSTRAINT events_comment_fk FOREIGN KEY (comment_id) REFERENCES comments (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- What happened before this migration: the openings and the comments, in
-- the order they were made.
INSERT INTO events (issue_id, pull_request_id, actor_id, kind, comment_id, created_at)
SELECT issue_id, pull_request_id, actor_id, kind, comment_id, created_at FROM (
	SELECT id AS issue_id, NULL AS pull_request_id, author_id AS actor_id,
		'opened' AS kind, NULL AS comment_id, created_at, 0 AS seq, id AS ord
		FROM issues
	UNION ALL
	SELECT NULL, id, author_id, 'opened', NULL, created_at, 0, id FROM pull_requests
	UNION ALL
	SELECT issue_id, pull_request_id, author_id, 'commented', id, created_at, 1, id
		FROM comments
) past ORDER BY created_at, seq, ord;

-- A user's inbox.  reason: mention (@login in a body or comment), comment
-- (on an issue or pull request the user opened), reply (in a discussion
-- the user started), merged (the user's pull request), review_requested.
-- The subject is an issue or a pull request; comment_id points at the
-- comment that caused it, when one did.  read_at is NULL while unread.
CREATE TABLE notifications (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	user_id BIGINT UNSIGNED NOT NULL,
	reason ENUM('mention','comment','reply','merged','review_requested') NOT NULL,
	repo_id BIGINT UNSIGNED NOT NULL,
	issue_id BIGINT UNSIGNED NULL,
	pull_request_id BIGINT UNSIGNED NULL,
	actor_id BIGINT UNSIGNED NOT NULL,
	comment_id BIGINT UNSIGNED NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	read_at DATETIME NULL,
	KEY notifications_user (user_id, id),
	KEY notifications_unread (user_id, read_at, id),
	CONSTRAINT notifications_one_subject CHECK ((issue_id IS NULL) <> (pull_request_id IS NULL)),
	CONSTRAINT notifications_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
	CONSTRAINT notifications_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT notifications_issue_fk FOREIGN KEY (issue_id) REFERENCES issues (id) ON DELETE CASCADE,
	CONSTRAINT notifications_pull_request_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE,
	CONSTRAINT notifications_actor_fk FOREIGN KEY (actor_id) REFERENCES users (id) ON DELETE CASCADE,
	CONSTRAINT notifications_comment_fk FOREIGN KEY (comment_id) REFERENCES comments (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Repository variables: public configuration values, readable by anyone
-- who can read the repository (never credentials).  Names match
-- [A-Z_][A-Z0-9_]* (at most 64); values are text of at most 4 KiB.
CREATE TABLE repository_variables (
	repo_id BIGINT UNSIGNED NOT NULL,
	name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	value TEXT NOT NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_by BIGINT UNSIGNED NULL,
	PRIMARY KEY (repo_id, name),
	CONSTRAINT repository_variables_value_size CHECK (OCTET_LENGTH(value) <= 4096),
	CONSTRAINT repository_variables_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT repository_variables_user_fk FOREIGN KEY (updated_by) REFERENCES users (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
