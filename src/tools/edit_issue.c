/* edit_issue: not written yet. */
