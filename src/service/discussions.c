/* discussions: not written yet. */
