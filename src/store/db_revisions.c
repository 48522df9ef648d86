/* db_revisions: not written yet. */
