/* variables: not written yet. */
