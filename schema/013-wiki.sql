-- 013-wiki: the sdlc hub's wiki copy (the sdlc-wiki module).
--
-- A project's wiki root (tracker_projects.wiki_root) names the page the
-- copy starts from: a code (DOC-1), or with the git backend the forge
-- repository, branch and code (docs/wiki@main:DOC-1).  A sync (a wiki_sync
-- command of a batch) replaces the project's pages in one transaction, so
-- a failed sync leaves the previous copy as it was and says why in its
-- wiki_sync_runs row.  Pages are listed in tree order: ord is the page's
-- place in a pre-order walk from the root and ord_end the last place of
-- its subtree, so a subtree is one range.  body is the page's Markdown;
-- chars its length in characters (code points).
ALTER TABLE tracker_projects MODIFY wiki_root VARCHAR(400) NULL;

CREATE TABLE wiki_pages (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	project_id BIGINT UNSIGNED NOT NULL,
	code VARCHAR(64) NOT NULL,
	title VARCHAR(500) NOT NULL,
	parent_id BIGINT UNSIGNED NULL,
	depth INT UNSIGNED NOT NULL,
	ord INT UNSIGNED NOT NULL,
	ord_end INT UNSIGNED NOT NULL,
	path TEXT NOT NULL,
	body LONGTEXT NOT NULL,
	chars INT UNSIGNED NOT NULL,
	source VARCHAR(1000) NOT NULL,
	synced_at DATETIME(3) NOT NULL,
	UNIQUE KEY wiki_pages_code (project_id, code),
	KEY wiki_pages_ord (project_id, ord),
	KEY wiki_pages_title (project_id, title(191)),
	FULLTEXT KEY wiki_pages_text (title, body),
	CONSTRAINT wiki_pages_project_fk FOREIGN KEY (project_id)
	    REFERENCES tracker_projects (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A page's attachment: what the source says of it, and its local copy once
-- fetched (state remote -> fetching -> ready | failed).
CREATE TABLE wiki_attachments (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	page_id BIGINT UNSIGNED NOT NULL,
	name VARCHAR(255) NOT NULL,
	size BIGINT UNSIGNED NOT NULL,
	mime VARCHAR(255) NOT NULL,
	source VARCHAR(1000) NOT NULL,
	state ENUM('remote', 'fetching', 'ready', 'failed') NOT NULL DEFAULT 'remote',
	fetched_path VARCHAR(1000) NULL,
	error TEXT NULL,
	KEY wiki_attachments_page (page_id),
	CONSTRAINT wiki_attachments_page_fk FOREIGN KEY (page_id)
	    REFERENCES wiki_pages (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A sync of a project's wiki from its root: done with the number of pages
-- and the source's revision, or failed with the reason.
CREATE TABLE wiki_sync_runs (
	id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	project_id BIGINT UNSIGNED NOT NULL,
	command_id BIGINT UNSIGNED NULL,
	root VARCHAR(400) NOT NULL,
	state ENUM('done', 'failed') NOT NULL,
	pages INT UNSIGNED NOT NULL DEFAULT 0,
	revision VARCHAR(64) NULL,
	error TEXT NULL,
	started_at DATETIME(3) NOT NULL,
	finished_at DATETIME(3) NOT NULL,
	KEY wiki_sync_runs_project (project_id, id),
	CONSTRAINT wiki_sync_runs_project_fk FOREIGN KEY (project_id)
	    REFERENCES tracker_projects (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
