"""CPUs (x86-64, AArch64): `pipeline.py` is lower-to-llvm; every other module here is one of its
passes. `strategies/` holds the codegen strategies of versa-codegen (one per op family),
`kernels/` the row-kernel writers of versa-row-kernels, `approximations/` the polynomial math of
versa-fast-math."""
