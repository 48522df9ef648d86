-- 007-rate-limit-buckets: the admission counts in a bounded set of buckets.
-- 004's table held a row per principal and window, and its old windows
-- were deleted only after an insert had succeeded: once requests from
-- many addresses had filled it, it stayed full and nothing was counted.
--
-- Now a principal has one row, its bucket: kind 'u' for an account
-- (principal is the user id), 'a' for the network of clients without a
-- valid token (an IPv4 /24 or IPv6 /64, such as '192.0.2.0/24').  n counts
-- the requests of the window that starts at window_start; a request in a
-- later window starts it again.  touched is the last request (unix
-- milliseconds).  forgemcp keeps at most rate_limit_buckets rows: a new
-- principal takes a free row, else the rows of ended windows are deleted,
-- else an account takes the least recently touched network's row.
--
-- ENGINE=MEMORY, as before: no disk write per request, shared by every
-- client of this server; the counts are lost when MariaDB restarts.  A
-- bucket takes about 165 bytes (65,536 of them fit the default 16 MiB
-- max_heap_table_size).  InnoDB was measured and is slower in a way that
-- matters: with one client and two workers, a request without a token
-- cost about 0.6 ms here and 2 ms on InnoDB, a token request 1.2 ms and
-- 2.8 ms, because InnoDB (innodb_flush_log_at_trx_commit=1) flushes its
-- redo log for every request.  MariaDB Galera replicates InnoDB tables
-- only, so each node of a cluster counts its own clients in this table;
-- the statements use nothing MEMORY-only, and such a cluster can share
-- the counts with ALTER TABLE rate_limits ENGINE=InnoDB at that cost.

DROP TABLE rate_limits;

CREATE TABLE rate_limits (
	kind CHAR(1) CHARACTER SET ascii NOT NULL,
	principal VARCHAR(64) CHARACTER SET ascii NOT NULL,
	window_start BIGINT NOT NULL,
	n INT UNSIGNED NOT NULL,
	touched BIGINT NOT NULL,
	PRIMARY KEY (kind, principal),
	KEY rate_limits_window_start (window_start) USING BTREE
) ENGINE=MEMORY;
