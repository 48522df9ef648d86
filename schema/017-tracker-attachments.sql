-- 017-tracker-attachments: the tracker's attachments in the mirror (the
-- card's «вложения», the sdlc-jira `attachment` tool).  An attachment is
-- known by the tracker's id; the hub holds its metadata, which comments
-- and whether the description refer to it, and state: remote (only in the
-- tracker), fetching (a fetch_attachment command is queued: command_id),
-- ready (the hub's copy is in tracker_attachment_contents) or failed
-- (error).  A file over 10 MB is never fetched.
CREATE TABLE tracker_attachments (
	id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	issue_id BIGINT UNSIGNED NOT NULL,
	filename VARCHAR(255) NOT NULL,
	size BIGINT UNSIGNED NULL,
	mime VARCHAR(255) NULL,
	author VARCHAR(255) NOT NULL,
	created_at DATETIME(3) NOT NULL,
	in_description TINYINT(1) NOT NULL DEFAULT 0,
	state ENUM('remote', 'fetching', 'ready', 'failed') NOT NULL DEFAULT 'remote',
	command_id BIGINT UNSIGNED NULL,
	error TEXT NULL,
	KEY tracker_attachments_issue (issue_id, created_at),
	CONSTRAINT tracker_attachments_issue_fk FOREIGN KEY (issue_id)
	    REFERENCES tracker_issues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The comments that refer to an attachment (the card's «в #101», «файлы:»).
CREATE TABLE tracker_attachment_comments (
	attachment_id BIGINT UNSIGNED NOT NULL,
	comment_id BIGINT UNSIGNED NOT NULL,
	PRIMARY KEY (attachment_id, comment_id),
	CONSTRAINT tracker_attachment_comments_fk FOREIGN KEY (attachment_id)
	    REFERENCES tracker_attachments (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The file as the local backend's tracker keeps it (what a Jira would
-- serve); its fetch_attachment copies it into the hub's copy below.
CREATE TABLE tracker_attachment_sources (
	attachment_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	bytes LONGBLOB NOT NULL,
	CONSTRAINT tracker_attachment_sources_fk FOREIGN KEY (attachment_id)
	    REFERENCES tracker_attachments (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The hub's copy, which the module server downloads.
CREATE TABLE tracker_attachment_contents (
	attachment_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	bytes LONGBLOB NOT NULL,
	fetched_at DATETIME(3) NOT NULL,
	CONSTRAINT tracker_attachment_contents_fk FOREIGN KEY (attachment_id)
	    REFERENCES tracker_attachments (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Files uploaded to the hub for ensure_attachment (POST /hub/files, then
-- parts of at most 30,000 base64 characters: the hub's requests are
-- small).  A file is its account's until a batch's ensure_attachment takes
-- it (the local backend then moves it into the attachment's source);
-- one never taken is dropped after a day.
CREATE TABLE tracker_files (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	user_id BIGINT UNSIGNED NOT NULL,
	filename VARCHAR(255) NOT NULL,
	size BIGINT UNSIGNED NOT NULL,
	received BIGINT UNSIGNED NOT NULL DEFAULT 0,
	created_at DATETIME(3) NOT NULL,
	KEY tracker_files_user (user_id, created_at),
	KEY tracker_files_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE tracker_file_parts (
	file_id BIGINT UNSIGNED NOT NULL,
	at_byte BIGINT UNSIGNED NOT NULL,
	bytes MEDIUMBLOB NOT NULL,
	PRIMARY KEY (file_id, at_byte),
	CONSTRAINT tracker_file_parts_fk FOREIGN KEY (file_id)
	    REFERENCES tracker_files (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
