/* db_inbox: not written yet. */
