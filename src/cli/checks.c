/* checks: not written yet. */
