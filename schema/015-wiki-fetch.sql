-- 015-wiki-fetch: the hub's copies of wiki attachments.  The `attachment`
-- tool asks for one (POST /hub/wiki/attachments/{id}/fetch): a wiki_fetch
-- command for the wiki agent, whose backend reads the file from the source
-- and stores it here; the module server then downloads it.  A sync that
-- replaces the project's copy drops its attachments and their contents.

-- The account whose token set a project's wiki root: a sync from the
-- forge reads a repository only while that account can still see it.
ALTER TABLE tracker_projects
	ADD COLUMN wiki_root_by BIGINT UNSIGNED NULL AFTER wiki_root;

-- The copy's bytes live in wiki_attachment_contents, so fetched_path (a
-- local path, never written) goes.
ALTER TABLE wiki_attachments
	ADD COLUMN command_id BIGINT UNSIGNED NULL AFTER state,
	DROP COLUMN fetched_path;

CREATE TABLE wiki_attachment_contents (
	attachment_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
	bytes LONGBLOB NOT NULL,
	fetched_at DATETIME(3) NOT NULL,
	CONSTRAINT wiki_attachment_contents_fk FOREIGN KEY (attachment_id)
	    REFERENCES wiki_attachments (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
