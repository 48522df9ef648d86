/* worker: not written yet. */
