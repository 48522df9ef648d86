-- 012-tracker: the sdlc hub's tracker mirror (the sdlc-jira module) and
-- the batches of commands an agent executes against it.
--
-- A project is a label (AWPCA, STOCKS_DRRK) with a name and a board.  An
-- issue belongs to the tracker, not to a project: it is a project's own
-- issue when it carries the project's label, and a neighbour of the
-- project when it is linked to one of its own.  Issue and comment ids are
-- the tracker's (a Jira's numbers when the mirror is one); keys are
-- unique (AWPCA-12).  Every write reaches the mirror through a batch of
-- commands (tracker_commands) that an agent claims and reports.
CREATE TABLE tracker_projects (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	label VARCHAR(64) NOT NULL,
	name VARCHAR(255) NOT NULL,
	board_id BIGINT UNSIGNED NULL,
	board_type VARCHAR(32) NULL,
	wiki_root VARCHAR(64) NULL,
	created_by VARCHAR(64) NOT NULL,
	created_at DATETIME(3) NOT NULL,
	UNIQUE KEY tracker_projects_label (label)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE tracker_issues (
	id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	issue_key VARCHAR(64) NOT NULL,
	issue_type VARCHAR(64) NOT NULL,
	summary VARCHAR(1000) NOT NULL,
	description MEDIUMTEXT NULL,
	status VARCHAR(64) NOT NULL,
	priority VARCHAR(64) NULL,
	assignee VARCHAR(255) NULL,
	reporter VARCHAR(255) NULL,
	due_date DATE NULL,
	sprint VARCHAR(255) NULL,
	story_points DECIMAL(8,2) NULL,
	created_at DATETIME(3) NOT NULL,
	updated_at DATETIME(3) NOT NULL,
	UNIQUE KEY tracker_issues_key (issue_key),
	KEY tracker_issues_updated (updated_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE tracker_issue_labels (
	issue_id BIGINT UNSIGNED NOT NULL,
	label VARCHAR(255) NOT NULL,
	PRIMARY KEY (issue_id, label),
	KEY tracker_issue_labels_label (label, issue_id),
	CONSTRAINT tracker_issue_labels_issue_fk FOREIGN KEY (issue_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Fields beyond the ones with columns (a tracker's custom fields), shown in
-- the card in name order.
CREATE TABLE tracker_issue_fields (
	issue_id BIGINT UNSIGNED NOT NULL,
	name VARCHAR(255) NOT NULL,
	value TEXT NOT NULL,
	PRIMARY KEY (issue_id, name),
	CONSTRAINT tracker_issue_fields_issue_fk FOREIGN KEY (issue_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A link from outward_id to inward_id: "AURORA-1 blocks AURORA-2" is
-- outward_id AURORA-1, inward_id AURORA-2, link_type Blocks, outward
-- "blocks", inward "is blocked by".  Each side reads it in its direction.
CREATE TABLE tracker_links (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	outward_id BIGINT UNSIGNED NOT NULL,
	inward_id BIGINT UNSIGNED NOT NULL,
	link_type VARCHAR(64) NOT NULL,
	outward VARCHAR(64) NOT NULL,
	inward VARCHAR(64) NOT NULL,
	UNIQUE KEY tracker_links_pair (outward_id, inward_id, link_type),
	KEY tracker_links_inward (inward_id),
	CONSTRAINT tracker_links_out_fk FOREIGN KEY (outward_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE,
	CONSTRAINT tracker_links_in_fk FOREIGN KEY (inward_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE tracker_comments (
	id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	issue_id BIGINT UNSIGNED NOT NULL,
	author VARCHAR(255) NOT NULL,
	body MEDIUMTEXT NOT NULL,
	created_at DATETIME(3) NOT NULL,
	updated_at DATETIME(3) NULL,
	KEY tracker_comments_issue (issue_id, created_at, id),
	CONSTRAINT tracker_comments_issue_fk FOREIGN KEY (issue_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A batch: commands queued together (author claude from MCP, api from the
-- API without one), for a project or none.  A command's state goes queued ->
-- claimed (an agent has it; handouts counts how often it was handed out) ->
-- done | failed | cancelled | skipped; params is its JSON object, result
-- what the agent reported (for ensure_issue {"temp_key": "new:1", "key":
-- "AURORA-12"}, which later commands of the batch use for new:1).  A
-- batch's commands run in seq order: one is handed out only when those
-- before it are final.  A claimed command not reported within its lease is
-- handed out again (handouts counts), and failed after the fifth time.
CREATE TABLE tracker_batches (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	project_id BIGINT UNSIGNED NULL,
	title VARCHAR(500) NOT NULL,
	author VARCHAR(64) NOT NULL,
	created_at DATETIME(3) NOT NULL,
	KEY tracker_batches_project (project_id, id),
	CONSTRAINT tracker_batches_project_fk FOREIGN KEY (project_id)
	    REFERENCES tracker_projects (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE tracker_commands (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	batch_id BIGINT UNSIGNED NOT NULL,
	seq INT UNSIGNED NOT NULL,
	type VARCHAR(32) NOT NULL,
	params TEXT NOT NULL,
	state ENUM('queued', 'claimed', 'done', 'failed', 'cancelled', 'skipped') NOT NULL,
	handouts INT UNSIGNED NOT NULL DEFAULT 0,
	claimed_at DATETIME(3) NULL,
	error TEXT NULL,
	result TEXT NULL,
	updated_at DATETIME(3) NOT NULL,
	UNIQUE KEY tracker_commands_seq (batch_id, seq),
	KEY tracker_commands_state (state, id),
	CONSTRAINT tracker_commands_batch_fk FOREIGN KEY (batch_id)
	    REFERENCES tracker_batches (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Notes: the hub's own annotations of an issue, not the tracker's.  A
-- temporary key of a project's batch is kept as "<label>/new:<n>" until its
-- ensure_issue reports the real key, which the notes then move to.
CREATE TABLE tracker_notes (
	issue_key VARCHAR(140) NOT NULL PRIMARY KEY,
	goal TEXT NULL,
	next_step TEXT NULL,
	risks TEXT NULL,
	text TEXT NULL,
	updated_by VARCHAR(64) NOT NULL,
	updated_at DATETIME(3) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Settings of the hub and its agents; every change raises version (the
-- settings_version an agent reports it runs with).
CREATE TABLE tracker_settings (
	name VARCHAR(64) NOT NULL PRIMARY KEY,
	value VARCHAR(1000) NOT NULL,
	version BIGINT UNSIGNED NOT NULL,
	updated_by VARCHAR(64) NOT NULL,
	updated_at DATETIME(3) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A refresh of the mirror: of a project, or of all (project_id NULL), with
-- the moment up to which the tracker's change journal was taken in.
CREATE TABLE tracker_sync_runs (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	project_id BIGINT UNSIGNED NULL,
	command_id BIGINT UNSIGNED NULL,
	state ENUM('done', 'failed') NOT NULL,
	issues INT UNSIGNED NOT NULL DEFAULT 0,
	history_at DATETIME(3) NULL,
	error TEXT NULL,
	started_at DATETIME(3) NOT NULL,
	finished_at DATETIME(3) NOT NULL,
	CONSTRAINT tracker_sync_runs_project_fk FOREIGN KEY (project_id)
	    REFERENCES tracker_projects (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- What each module's agent said of itself at its last claim, and when.
CREATE TABLE tracker_agents (
	module VARCHAR(32) NOT NULL PRIMARY KEY,
	version VARCHAR(64) NULL,
	launcher VARCHAR(64) NULL,
	update_state VARCHAR(32) NULL,
	update_target VARCHAR(64) NULL,
	update_error TEXT NULL,
	update_hint TEXT NULL,
	settings_version BIGINT UNSIGNED NULL,
	last_seen DATETIME(3) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- 429 answers an agent met (its claims report how many since the last one).
CREATE TABLE tracker_agent_429 (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	module VARCHAR(32) NOT NULL,
	count INT UNSIGNED NOT NULL,
	at DATETIME(3) NOT NULL,
	KEY tracker_agent_429_at (module, at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The agent version the hub publishes (expects), newest last.
CREATE TABLE tracker_publications (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	module VARCHAR(32) NOT NULL,
	version VARCHAR(64) NOT NULL,
	published_at DATETIME(3) NOT NULL,
	KEY tracker_publications_module (module, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- When the hub (a FastCGI master) started: an agent that has not claimed
-- since the latest start has not reported to this hub yet.
CREATE TABLE tracker_hub_starts (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	started_at DATETIME(3) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
