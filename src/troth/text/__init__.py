"""Text helpers with no model: sentence spans and claim splitting, context windows, word
overlap, sentence retrieval, locating evidence quotes, spotting instructions to the judge, and
reading chat transcripts."""
