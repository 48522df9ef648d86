/* db_checks: not written yet. */
