"""`versa optimize`: one command from a model to a faster artifact and a report.

The pipeline gathers the data (import, compile, validate against the framework, benchmark,
profile, memory, the compiler's decisions) into one report dict whose shape is
`report_schema.json`. `report.py` validates and writes it; `html.py` and `sections.py` draw
the self-contained page on `page.py`'s shell with `plots.py`'s plots; `summary.py` writes the
console summary and `index.py` the page of a batch of models.
"""
