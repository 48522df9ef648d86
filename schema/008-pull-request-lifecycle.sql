-- 008-pull-request-lifecycle: check results that belong to a revision, and
-- why a merge failed in the pull request's activity.

-- A check result counts for a revision of a pull request only when it was
-- reported after the pull request's target last changed: the same head
-- commit checked against another target says nothing about the new one.
-- Both times get microseconds so that a report and a target change made in
-- the same second are ordered; existing values keep their seconds.
ALTER TABLE check_results
	MODIFY updated_at DATETIME(6) NOT NULL DEFAULT UTC_TIMESTAMP(6);
ALTER TABLE pull_request_revisions
	MODIFY created_at DATETIME(6) NOT NULL DEFAULT UTC_TIMESTAMP(6);

-- merge_failed: the merge worker refused or could not make a queued merge;
-- detail is the public reason (what merge_error shows).
ALTER TABLE events
	MODIFY kind ENUM('opened','edited','closed','reopened','commented','merged','merge_failed') NOT NULL,
	ADD COLUMN detail TEXT NULL;
