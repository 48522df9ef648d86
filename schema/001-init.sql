-- 001-init: users, the token cache, repositories and their collaborators.
-- All DATETIME columns hold UTC (the connection sets time_zone '+00:00').
-- db_migrate records this migration in schema_migrations; it does not do so itself.

CREATE TABLE IF NOT EXISTS schema_migrations (
	version INT NOT NULL PRIMARY KEY,
	name VARCHAR(255) NOT NULL,
	applied_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP()
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE users (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	login VARCHAR(64) NOT NULL,
	name VARCHAR(255) NULL,
	email VARCHAR(255) NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	UNIQUE KEY users_login (login)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE tokens (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	token_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	user_id BIGINT UNSIGNED NOT NULL,
	name VARCHAR(255) NULL,
	scopes SET('read','write','execute','merge') NOT NULL,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	expires_at DATETIME NULL,
	revoked_at DATETIME NULL,
	last_used_at DATETIME NULL,
	UNIQUE KEY tokens_hash (token_hash),
	KEY tokens_user (user_id),
	CONSTRAINT tokens_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE repositories (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	owner_id BIGINT UNSIGNED NOT NULL,
	name VARCHAR(100) NOT NULL,
	description TEXT NULL,
	default_branch VARCHAR(255) NOT NULL DEFAULT 'main',
	private TINYINT(1) NOT NULL DEFAULT 0,
	next_number INT UNSIGNED NOT NULL DEFAULT 1,
	created_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	updated_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP(),
	UNIQUE KEY repositories_owner_name (owner_id, name),
	KEY repositories_updated (updated_at, id),
	CONSTRAINT repositories_owner_fk FOREIGN KEY (owner_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE collaborators (
	repo_id BIGINT UNSIGNED NOT NULL,
	user_id BIGINT UNSIGNED NOT NULL,
	role ENUM('reader','writer','manager') NOT NULL,
	PRIMARY KEY (repo_id, user_id),
	KEY collaborators_user (user_id),
	CONSTRAINT collaborators_repo_fk FOREIGN KEY (repo_id) REFERENCES repositories (id) ON DELETE CASCADE,
	CONSTRAINT collaborators_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
