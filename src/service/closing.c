/* closing: not written yet. */
