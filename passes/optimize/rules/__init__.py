"""Rewrite rules of the versa-level passes: algebra and folds (canonicalize), fusion legality
(fuse), transpose motion (layout)."""
