/* merge: not written yet. */
