-- 014-wiki-upload: the parts of a wiki copy an agent uploads.
--
-- An agent that reads a wiki from a source the hub cannot reach itself (a
-- Confluence-style server) sends the copy in parts, each a request body
-- under the hub's max_body; the last part has the hub check the whole
-- copy and load it in one transaction, which also drops the parts.  A
-- part 0 starts the upload of its command afresh (an agent that died
-- mid-upload leaves parts that the next claim of the command replaces).
-- bytes is the length of data, so the running total is read without the
-- parts' text.
CREATE TABLE wiki_upload_parts (
	command_id BIGINT UNSIGNED NOT NULL,
	part INT UNSIGNED NOT NULL,
	bytes INT UNSIGNED NOT NULL,
	data MEDIUMTEXT NOT NULL,
	PRIMARY KEY (command_id, part),
	CONSTRAINT wiki_upload_parts_command_fk FOREIGN KEY (command_id)
	    REFERENCES tracker_commands (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
