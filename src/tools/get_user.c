/* get_user: not written yet. */
