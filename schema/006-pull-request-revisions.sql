-- 006-pull-request-revisions: numbered revisions of a pull request, review
-- discussions, branch rules and check results, and the merge queue.
-- Commit ids are 40 hex digits (SHA-1 repositories).  All DATETIME columns
-- hold UTC.

-- version: the pull request's current revision, 0 until the first one is
-- recorded (pull requests opened before this migration get theirs the next
-- time they are read).  merge_state follows the latest queued merge.
ALTER TABLE pull_requests
	ADD COLUMN version INT UNSIGNED NOT NULL DEFAULT 0,
	ADD COLUMN merge_state ENUM('none','queued','running','merged','failed') NOT NULL DEFAULT 'none',
	ADD COLUMN merge_commit CHAR(40) CHARACTER SET ascii NULL;

-- One row per revision: what the head and the target were when it was
-- recorded.  A revision is added when the head branch moves (noticed when
-- the pull request is read or queued) and when the target changes.
-- merge_base is NULL when the two histories share no commit.
CREATE TABLE pull_request_revisions (
	pull_request_id BIGINT UNSIGNED NOT NULL,
	version INT UNSIGNED NOT NULL,
	head_commit CHAR(40) CHARACTER SET ascii NOT NULL,
	base_ref VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	base_commit CHAR(40) CHARACTER SET ascii NOT NULL,
	merge_base CHAR(40) CHARACTER SET ascii NULL,
	reason ENUM('opened','push','target') NOT NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	PRIMARY KEY (pull_request_id, version),
	CONSTRAINT pull_request_revisions_version_positive CHECK (version > 0),
	CONSTRAINT pull_request_revisions_pr_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Review discussions: a general thread (path NULL) or one anchored to a
-- line of one side of a revision's diff.  anchor_context keeps the diff
-- lines around the anchor as they were on that revision.  state_version
-- counts resolve/reopen changes.
CREATE TABLE discussions (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	pull_request_id BIGINT UNSIGNED NOT NULL,
	author_id BIGINT UNSIGNED NOT NULL,
	version INT UNSIGNED NOT NULL,
	path VARCHAR(4096) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
	line INT UNSIGNED NULL,
	side ENUM('old','new') NULL,
	anchor_context MEDIUMTEXT NULL,
	body MEDIUMTEXT NOT NULL,
	state ENUM('open','resolved') NOT NULL DEFAULT 'open',
	state_version INT UNSIGNED NOT NULL DEFAULT 1,
	state_changed_by BIGINT UNSIGNED NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	KEY discussions_pull_request (pull_request_id, id),
	CONSTRAINT discussions_anchor_whole CHECK ((path IS NULL) = (line IS NULL) AND (path IS NULL) = (side IS NULL)),
	CONSTRAINT discussions_body_present CHECK (body <> ''),
	CONSTRAINT discussions_pr_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE,
	CONSTRAINT discussions_author_fk FOREIGN KEY (author_id) REFERENCES users (id),
	CONSTRAINT discussions_state_user_fk FOREIGN KEY (state_changed_by) REFERENCES users (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE discussion_replies (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	discussion_id BIGINT UNSIGNED NOT NULL,
	author_id BIGINT UNSIGNED NOT NULL,
	body MEDIUMTEXT NOT NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	KEY discussion_replies_discussion (discussion_id, id),
	CONSTRAINT discussion_replies_body_present CHECK (body <> ''),
	CONSTRAINT discussion_replies_discussion_fk FOREIGN KEY (discussion_id) REFERENCES discussions (id) ON DELETE CASCADE,
	CONSTRAINT discussion_replies_author_fk FOREIGN KEY (author_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Branch rules: the checks a pull request into branch must pass.
CREATE TABLE branch_rules (
	repo_id BIGINT UNSIGNED NOT NULL,
	branch VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	check_name VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	PRIMARY KEY (repo_id, branch, check_name),
	CONSTRAINT branch_rules_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Check results per commit (reported by `forgemcp check report`, later by CI).
CREATE TABLE check_results (
	repo_id BIGINT UNSIGNED NOT NULL,
	commit_id CHAR(40) CHARACTER SET ascii NOT NULL,
	name VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	status ENUM('pending','running','success','failure','cancelled') NOT NULL,
	details TEXT NULL,
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	PRIMARY KEY (repo_id, commit_id, name),
	CONSTRAINT check_results_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Approval for checks to run on one revision of a pull request (a manager's
-- decision; opening a pull request never approves).
CREATE TABLE check_approvals (
	pull_request_id BIGINT UNSIGNED NOT NULL,
	version INT UNSIGNED NOT NULL,
	approved_by BIGINT UNSIGNED NOT NULL,
	approved_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	PRIMARY KEY (pull_request_id, version),
	CONSTRAINT check_approvals_pr_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE,
	CONSTRAINT check_approvals_user_fk FOREIGN KEY (approved_by) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The merge queue, processed by `forgemcp worker`.  A row is queued by
-- merge_pull_request for the revision the caller observed; the worker
-- claims it (state running, claimed_by, heartbeat_at), merges into the
-- target with libgit2, moves the ref only if it still holds base_commit,
-- then marks it merged (result_commit) or failed (error).
CREATE TABLE merges (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	repo_id BIGINT UNSIGNED NOT NULL,
	pull_request_id BIGINT UNSIGNED NOT NULL,
	version INT UNSIGNED NOT NULL,
	strategy ENUM('merge','squash','fast_forward') NOT NULL DEFAULT 'merge',
	requested_by BIGINT UNSIGNED NOT NULL,
	state ENUM('queued','running','merged','failed') NOT NULL DEFAULT 'queued',
	attempts INT UNSIGNED NOT NULL DEFAULT 0,
	base_commit CHAR(40) CHARACTER SET ascii NULL,
	result_commit CHAR(40) CHARACTER SET ascii NULL,
	error TEXT NULL,
	claimed_by VARCHAR(128) NULL,
	heartbeat_at DATETIME NULL,
	queued_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	finished_at DATETIME NULL,
	KEY merges_state (state, id),
	KEY merges_pull_request (pull_request_id, id),
	CONSTRAINT merges_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT merges_pr_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE,
	CONSTRAINT merges_user_fk FOREIGN KEY (requested_by) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
