-- 003-web-search: the web_search rate limit, a sliding one-hour window per user.
-- web_search_users holds one row per user that has searched; the tool locks it
-- (SELECT ... FOR UPDATE) so every worker and host counts the window in turn.
-- web_search_events holds one row per search in the last hour; each search
-- purges that user's older rows in the same transaction, so no cron is needed.

CREATE TABLE web_search_users (
	user_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	CONSTRAINT web_search_users_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE web_search_events (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	user_id BIGINT UNSIGNED NOT NULL,
	at DATETIME(6) NOT NULL,
	KEY web_search_events_user_at (user_id, at),
	CONSTRAINT web_search_events_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
