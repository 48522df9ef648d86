/* list_repository_variables: not written yet. */
