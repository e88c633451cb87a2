"""What passes of every phase and target share: the Pass and Pipeline shapes (`base`,
`pipeline`), the rewrite-pattern adapter (`rewrite`), op matching (`matching`), compute types,
linalg and window builders, scalar emitters, kernel text, memref and row-kernel facts. No pass
lives here, and nothing here imports a phase or a target."""
