/* db_discussions: not written yet. */
