-- 019-merge-locks: a repository's merge lock as a row, not a MariaDB named
-- lock.  GET_LOCK is local to the server it is taken on: on a Galera
-- cluster two workers on two nodes could both hold it.  A row is
-- replicated, and two nodes taking it at once collide at commit.
--
-- holder is the worker's "host:pid" (as merges.claimed_by); beat_at is
-- when it took the lock or last said it still holds it.  The lock is free
-- when there is no row, or its holder's beat is older than the workers'
-- stale time (a running merge without a heartbeat that long is taken up),
-- or the one taking it knows the holder is a dead process of its own host.
CREATE TABLE merge_locks (
	repo_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	holder VARCHAR(300) NOT NULL,
	beat_at DATETIME(3) NOT NULL,
	CONSTRAINT merge_locks_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
