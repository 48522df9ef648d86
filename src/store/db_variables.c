/* db_variables: not written yet. */
