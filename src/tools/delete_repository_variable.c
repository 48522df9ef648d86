/* delete_repository_variable: not written yet. */
