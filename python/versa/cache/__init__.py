"""The persistent compile cache: machine code on disk, keyed by everything that decides it.

A second process that compiles what a first one compiled (the same model, pipeline, options,
host and Versa) loads the first one's code instead of running the pipeline and LLVM again.
`JitFunction` is where it hooks in, so `versa.compile`, the torch.compile backend, `versa-run`
and anything else that JITs through it share one cache:

    keys.py    the key: a sha256 over the module text, the pipeline, LLVM's -O, the host, the
               runtime and the compiler itself (what is in it and why)
    store.py   the folder: one checksummed file per key, atomic writes, LRU eviction
    jit.py     a JitFunction's entry: a shared library and its signature; loading it
    imports.py        an imported module as an entry (MLIR bytecode); ONNX files by content
    torch_imports.py  a torch model's imported module, keyed before torch.export by
    torch_key.py      the live model: code (code_digest.py), weights, attributes
                      (stable_form.py), inputs, versions

Where: `VERSA_CACHE_DIR` (default `$XDG_CACHE_HOME/versa`, else `~/.cache/versa`; `off`
disables it), at most `VERSA_CACHE_SIZE` bytes (default 2 GiB). `versa cache info` and
`versa cache clear` show and empty it. Log lines (`VERSA_LOG=info`) say each hit, miss, write
and eviction; a corrupt entry is a warning (and a recompile), never a load.
"""
