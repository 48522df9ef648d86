-- 009-merge-workers: each `forgemcp worker` says it is alive, so that a merge
-- left queued because no worker runs can say so.
--
-- One row a worker process (worker is its "host:pid", as merges.claimed_by):
-- it sets seen_at on every poll and interval_ms to its poll interval, and
-- running to 0 when it stops cleanly.  A worker is taken for gone when it
-- stopped or missed three polls (at least ten seconds).  Rows not seen for
-- a week are deleted by the workers' polls.
CREATE TABLE merge_workers (
	worker VARCHAR(300) NOT NULL PRIMARY KEY,
	interval_ms INT UNSIGNED NOT NULL,
	running TINYINT(1) NOT NULL DEFAULT 1,
	seen_at DATETIME(3) NOT NULL,
	KEY merge_workers_seen (seen_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
