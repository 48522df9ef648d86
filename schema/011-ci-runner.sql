-- 011-ci-runner: what `forgemcp runner` needs to execute the jobs of runs,
-- the logs it writes, and cancelling.
--
-- A runner claims a queued job of a queued or running run with
-- SELECT ... FOR UPDATE SKIP LOCKED, sets claimed_by to its "host:pid" and
-- heartbeat_at, and renews heartbeat_at every few seconds while the job
-- runs.  A running job whose heartbeat is older than the runner timeout is
-- failed ("runner lost"), never run again.  cancel_requested_by/_at are
-- set by cancel_run on a running job: the runner sees them, stops the job's
-- process group and ends the job cancelled.  timed_out is 1 when the job
-- ended because it passed its timeout_minutes (state timed_out).
ALTER TABLE ci_jobs
	ADD COLUMN claimed_by VARCHAR(300) NULL,
	ADD COLUMN heartbeat_at DATETIME(3) NULL,
	ADD COLUMN cancel_requested_by BIGINT UNSIGNED NULL,
	ADD COLUMN cancel_requested_at DATETIME(3) NULL,
	ADD COLUMN timed_out TINYINT(1) NOT NULL DEFAULT 0,
	ADD KEY ci_jobs_running (state, heartbeat_at),
	ADD CONSTRAINT ci_jobs_cancel_user_fk FOREIGN KEY (cancel_requested_by) REFERENCES users (id);

-- A job's log: the bytes of its steps' output in the order written, in
-- chunks of at most 16 KiB (seq from 0; byte_offset is the byte offset of the
-- chunk's first byte in the log, so a reader finds the chunk holding any
-- offset with the (job_id, byte_offset) key).  ci_jobs.log_bytes is the sum of
-- the chunks' lengths, updated in the transaction that appends a chunk.
-- A log is complete when its job is in a final state: the runner appends
-- the last chunk before, or with, the final state.
CREATE TABLE ci_log_chunks (
	job_id BIGINT UNSIGNED NOT NULL,
	seq INT UNSIGNED NOT NULL,
	byte_offset BIGINT UNSIGNED NOT NULL,
	bytes BLOB NOT NULL,
	PRIMARY KEY (job_id, seq),
	UNIQUE KEY ci_log_chunks_offset (job_id, byte_offset),
	CONSTRAINT ci_log_chunks_size CHECK (LENGTH(bytes) BETWEEN 1 AND 16384),
	CONSTRAINT ci_log_chunks_job_fk FOREIGN KEY (job_id) REFERENCES ci_jobs (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
