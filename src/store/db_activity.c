/* db_activity: not written yet. */
