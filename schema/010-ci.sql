-- 010-ci: CI runs of the workflows in .forgemcp/workflows, and their job instances.
--
-- A run is numbered per repository (number, from 1): the number is drawn as
-- MAX(number) + 1 under the repository row's lock in the transaction that
-- inserts the run, so numbers never collide and a failed insert consumes
-- nothing.  Runs have their own number space, apart from issues and pull
-- requests.  A run is pinned: commit_id and workflow_blob are what was read
-- when it was created, and never change.  inputs holds the effective values
-- (defaults filled in) as a JSON object; selected_jobs the logical jobs the
-- caller named as a JSON array (NULL: every job); closure_added the
-- logical jobs the needs closure brought in, a JSON array.  rerun_of is the
-- number of the run this one repeats.  All DATETIME columns hold UTC.
CREATE TABLE ci_runs (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	repo_id BIGINT UNSIGNED NOT NULL,
	number INT UNSIGNED NOT NULL,
	workflow VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	workflow_name VARCHAR(255) NOT NULL,
	workflow_path VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	workflow_blob CHAR(40) CHARACTER SET ascii NOT NULL,
	event ENUM('manual','pull_request','push','rerun') NOT NULL,
	ref VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	commit_id CHAR(40) CHARACTER SET ascii NOT NULL,
	pull_request_id BIGINT UNSIGNED NULL,
	pull_version INT UNSIGNED NULL,
	state ENUM('awaiting_approval','queued','running','success','failure','cancelled') NOT NULL,
	actor_id BIGINT UNSIGNED NOT NULL,
	inputs MEDIUMTEXT NOT NULL,
	selected_jobs TEXT NULL,
	closure_added TEXT NOT NULL,
	rerun_of INT UNSIGNED NULL,
	created_at DATETIME(3) NOT NULL DEFAULT UTC_TIMESTAMP(3),
	started_at DATETIME(3) NULL,
	finished_at DATETIME(3) NULL,
	UNIQUE KEY ci_runs_repo_number (repo_id, number),
	KEY ci_runs_repo_workflow (repo_id, workflow, number),
	KEY ci_runs_repo_ref (repo_id, ref, number),
	KEY ci_runs_repo_state (repo_id, state, number),
	KEY ci_runs_actor (actor_id),
	KEY ci_runs_pull (pull_request_id),
	CONSTRAINT ci_runs_number_positive CHECK (number > 0),
	CONSTRAINT ci_runs_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT ci_runs_actor_fk FOREIGN KEY (actor_id) REFERENCES users (id),
	CONSTRAINT ci_runs_pull_fk FOREIGN KEY (pull_request_id) REFERENCES pull_requests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One row a job instance: a logical job, or one child of its matrix (job_id
-- "test (os=debian, cc=gcc)"), in the run's order (seq, from 0).  matrix is
-- the child's values as a JSON object ({} without a matrix); needs the
-- logical jobs it waits for, a JSON array.  A job with needs starts
-- blocked, one without queued.  exit_code is NULL until a process ended;
-- log_bytes counts the bytes of its log.
CREATE TABLE ci_jobs (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	run_id BIGINT UNSIGNED NOT NULL,
	seq SMALLINT UNSIGNED NOT NULL,
	job_id VARCHAR(2000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	job VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	name VARCHAR(255) NOT NULL,
	matrix TEXT NOT NULL,
	needs TEXT NOT NULL,
	state ENUM('blocked','queued','running','success','failure','cancelled','skipped','timed_out') NOT NULL,
	exit_code INT NULL,
	timeout_minutes SMALLINT UNSIGNED NOT NULL,
	started_at DATETIME(3) NULL,
	finished_at DATETIME(3) NULL,
	log_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,
	UNIQUE KEY ci_jobs_run_seq (run_id, seq),
	KEY ci_jobs_state (state, id),
	CONSTRAINT ci_jobs_timeout_range CHECK (timeout_minutes BETWEEN 1 AND 360),
	CONSTRAINT ci_jobs_run_fk FOREIGN KEY (run_id) REFERENCES ci_runs (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
