"""versa-level optimisation, for every target: versa-canonicalize, versa-fuse, versa-layout and
the `versa-optimize` pipeline that runs them; their rewrite rules are in `rules/`."""
