"""Running CPU code: the JIT (`runtime`), memref descriptors, the symbols compiled code may
call, the OpenMP runtime, and ahead-of-time libraries (`aot`)."""
