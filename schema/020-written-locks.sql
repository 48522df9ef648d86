-- 020-written-locks: a row locked to check a cap is also written.
--
-- Some writes check a cap or a uniqueness under the lock of a row they
-- do not otherwise change: the 100 variables and the waiting runs of a
-- repository (its repositories row), an account's hourly web searches
-- (its web_search_users row), the one queued wiki sync of a project (its
-- tracker_projects row), a sprint's state while issues join it, and the
-- jobs of a CI run that end at once and start what needs them (its
-- ci_runs row).  On one
-- server the lock serialises them.  A Galera cluster certifies only the
-- rows a transaction writes: two nodes locking the same row each let one
-- more through.  So each of those transactions now adds one to the row's
-- lock_count, and two nodes doing it at once collide at commit and one
-- runs again.
--
-- The tracker settings' version is MAX(version) + 1 under a lock of the
-- table's rows; two nodes setting two different names would give both the
-- same version, and an agent that read that version would miss one.  A
-- unique key makes the second a collision.
ALTER TABLE repositories ADD COLUMN lock_count BIGINT UNSIGNED NOT NULL DEFAULT 0;
ALTER TABLE ci_runs ADD COLUMN lock_count BIGINT UNSIGNED NOT NULL DEFAULT 0;
ALTER TABLE web_search_users ADD COLUMN lock_count BIGINT UNSIGNED NOT NULL DEFAULT 0;
ALTER TABLE tracker_projects ADD COLUMN lock_count BIGINT UNSIGNED NOT NULL DEFAULT 0;
ALTER TABLE tracker_sprints ADD COLUMN lock_count BIGINT UNSIGNED NOT NULL DEFAULT 0;
ALTER TABLE tracker_settings ADD UNIQUE KEY tracker_settings_version (version);
