-- 004-rate-limits: admission control, a fixed window per principal.
-- One row per (kind, principal, window start): kind 'u' for an account
-- (principal is the user id), 'a' for an unauthenticated client (principal
-- is its address).  Each request bumps n with one INSERT ... ON DUPLICATE
-- KEY UPDATE.  ENGINE=MEMORY: no disk write per request, shared by every
-- client of this server. The counts are lost when MariaDB restarts, which
-- at worst lets a client start a fresh window early.  Rows of windows that
-- ended more than one window ago are deleted by the requests themselves.

CREATE TABLE rate_limits (
	kind CHAR(1) CHARACTER SET ascii NOT NULL,
	principal VARCHAR(64) CHARACTER SET ascii NOT NULL,
	window_start BIGINT NOT NULL,
	n INT UNSIGNED NOT NULL,
	PRIMARY KEY (kind, principal, window_start),
	KEY rate_limits_window_start (window_start) USING BTREE
) ENGINE=MEMORY;
