// RUN: versa-opt %s --split-input-file --versa-buffer-cache | FileCheck %s

// finalize-memref-to-llvm{use-generic-functions=true} leaves the module's allocs and deallocs
// as calls of two declared functions; the pass defines them as a cache of large blocks, hidden
// (each module or library has its own), and an exported function that frees what it holds.
// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-DAG: llvm.func @malloc_usable_size(!llvm.ptr) -> i64
// CHECK-DAG: llvm.mlir.global internal @__versa_buffers_lock(0 : i32)
// CHECK-DAG: llvm.mlir.global internal @__versa_buffers_ptr() {{.*}} : !llvm.array<32 x i64>
// CHECK-DAG: llvm.mlir.global internal @__versa_buffers_size() {{.*}} : !llvm.array<32 x i64>

// Small requests go straight to malloc; large ones take a held block under the lock.
// CHECK-LABEL: llvm.func hidden @_mlir_memref_to_llvm_alloc(
//       CHECK:   llvm.mlir.constant(65536 : i64)
//       CHECK:   llvm.cond_br %{{.*}}, ^[[CACHE:.+]], ^[[FRESH:.+]]
//       CHECK: ^[[CACHE]]:
//       CHECK:   llvm.cmpxchg %{{.*}} acquire monotonic
//       CHECK:   llvm.store %{{.*}}, %{{.*}} atomic release
//       CHECK: ^[[FRESH]]:
//       CHECK:   llvm.call @malloc

// A large freed block is held in place of a smaller one, which is freed; a small one is freed.
// CHECK-LABEL: llvm.func hidden @_mlir_memref_to_llvm_free(
//       CHECK:   llvm.call @malloc_usable_size
//       CHECK:   llvm.cmpxchg
//       CHECK:   llvm.call @free
//       CHECK:   llvm.call @free

// CHECK-LABEL: llvm.func @__versa_release_buffers()
//       CHECK:   llvm.call @free
//       CHECK:   llvm.cond_br

// The calls themselves are left as they are.
// CHECK-LABEL: llvm.func @f
//       CHECK:   llvm.call @_mlir_memref_to_llvm_alloc
//       CHECK:   llvm.call @_mlir_memref_to_llvm_free
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @f(%n: i64) {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// A module that allocates nothing on the heap gets nothing.
// CHECK-LABEL: llvm.func @plain
//   CHECK-NOT: __versa_buffers
//   CHECK-NOT: _mlir_memref_to_llvm
llvm.func @plain() {
  llvm.return
}
