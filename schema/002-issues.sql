-- 002-issues: issues, pull requests and their comments.
-- Issues and pull requests share one number space per repository: a number is
-- drawn from repositories.next_number under a row lock in the transaction that
-- inserts the record, so numbers never collide and a rolled-back insert
-- consumes nothing.  All DATETIME columns hold UTC.

CREATE TABLE issues (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	repo_id BIGINT UNSIGNED NOT NULL,
	number INT UNSIGNED NOT NULL,
	author_id BIGINT UNSIGNED NOT NULL,
	title VARCHAR(256) NOT NULL,
	body MEDIUMTEXT NULL,
	state ENUM('open','closed') NOT NULL DEFAULT 'open',
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	closed_at DATETIME NULL,
	UNIQUE KEY issues_repo_number (repo_id, number),
	KEY issues_repo_state (repo_id, state, number),
	KEY issues_author (author_id),
	CONSTRAINT issues_title_present CHECK (title <> ''),
	CONSTRAINT issues_number_positive CHECK (number > 0),
	CONSTRAINT issues_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT issues_author_fk FOREIGN KEY (author_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE pull_requests (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	repo_id BIGINT UNSIGNED NOT NULL,
	number INT UNSIGNED NOT NULL,
	author_id BIGINT UNSIGNED NOT NULL,
	title VARCHAR(256) NOT NULL,
	body MEDIUMTEXT NULL,
	state ENUM('open','closed','merged') NOT NULL DEFAULT 'open',
	head_ref VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	base_ref VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	closed_at DATETIME NULL,
	merged_at DATETIME NULL,
	UNIQUE KEY pull_requests_repo_number (repo_id, number),
	KEY pull_requests_repo_state (repo_id, state, number),
	KEY pull_requests_repo_refs (repo_id, head_ref, base_ref, state),
	KEY pull_requests_author (author_id),
	CONSTRAINT pull_requests_title_present CHECK (title <> ''),
	CONSTRAINT pull_requests_number_positive CHECK (number > 0),
	CONSTRAINT pull_requests_refs_present CHECK (head_ref <> '' AND base_ref <> ''),
	CONSTRAINT pull_requests_refs_differ CHECK (head_ref <> base_ref),
	CONSTRAINT pull_requests_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT pull_requests_author_fk FOREIGN KEY (author_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A comment belongs to exactly one issue or one pull request.
CREATE TABLE comments (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	issue_id BIGINT UNSIGNED NULL,
	pull_request_id BIGINT UNSIGNED NULL,
	author_id BIGINT UNSIGNED NOT NULL,
	body MEDIUMTEXT NOT NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	KEY comments_issue (issue_id, id),
	KEY comments_pull_request (pull_request_id, id),
	KEY comments_author (author_id),
	CONSTRAINT comments_one_parent CHECK ((issue_id IS NULL) <> (pull_request_id IS NULL)),
	CONSTRAINT comments_body_present CHECK (body <> ''),
	CONSTRAINT comments_issue_fk FOREIGN KEY (issue_id) REFERENCES issues (id) ON DELETE CASCADE,
	CONSTRAINT comments_pull_request_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE,
	CONSTRAINT comments_author_fk FOREIGN KEY (author_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
