/* db_merges: not written yet. */
