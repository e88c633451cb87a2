// versa-codegen's remarks: the strategy each op gets (passed) and, with the numbers behind
// them, the choices that explain a slow kernel (missed): threads not worth a fork and join,
// B not packed where its block outgrows L1, and ops no strategy takes (plain loops).
// RUN: versa-opt %s --versa-codegen="target=x86-64-v4 threads=2" --remarks-filter=versa-codegen -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// RUN: versa-opt %s --versa-codegen="target=x86-64-v4 threads=2" --remarks-filter-missed=codegen -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSED

// MISSED-NOT: [Passed]
// A filter searches `pass:category`: threads remarks only.
// RUN: versa-opt %s --versa-codegen="target=x86-64-v4 threads=2" --remarks-filter=codegen:threads -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=THREADS
// THREADS-NOT: Category:{{strategy|packing|fallback}}
// THREADS: Category:threads
// THREADS-NOT: Category:{{strategy|packing|fallback}}

// 16x16x16: 8 K flops save 64 cycles on a second thread, a fork and join costs 2^15.
// CHECK: versa-codegen-remarks.mlir:[[# @LINE + 6]]:8: remark: [Passed] versa-codegen | Category:strategy | Reason="tiled by MatmulStrategy", op="linalg.matmul"
// CHECK: versa-codegen-remarks.mlir:[[# @LINE + 5]]:8: remark: [Missed] versa-codegen | Category:threads | Reason="one thread: more would save fewer core cycles than an OpenMP fork and join costs", op="linalg.matmul", threads=2, flops=8192, bytes=3072, saved_cycles=64, fork_join_cycles=32768
func.func @small(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// N = 1001 is no whole number of 32-column register tiles: B's 250x512 block (512 KB, L1 32 KB)
// is read in place.
// MISSED: versa-codegen-remarks.mlir:[[# @LINE + 5]]:8: remark: [Missed] versa-codegen | Category:packing | Reason="B not packed: N or K is no whole number of register tiles; B's panels are read strided", op="linalg.matmul", n=1001, k=1000, nr=32, kr=4, b_block_bytes=512000, l1_bytes=32768
func.func @ragged(%a: tensor<256x1000xf32>, %b: tensor<1000x1001xf32>) -> tensor<256x1001xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1001xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x1001xf32>) -> tensor<256x1001xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x1000xf32>, tensor<1000x1001xf32>) outs(%c : tensor<256x1001xf32>) -> tensor<256x1001xf32>
  return %r : tensor<256x1001xf32>
}

// MISSED: versa-codegen-remarks.mlir:[[# @LINE + 5]]:8: remark: [Missed] versa-codegen | Category:fallback | Reason="no codegen strategy (no strategy takes its shape, element type or form): it becomes plain loops", op="linalg.matvec", operands="tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>"
func.func @matvec(%a: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.matvec ins(%a, %b : tensor<64x64xf32>, tensor<64xf32>) outs(%c : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// MISSED: versa-codegen-remarks.mlir:[[# @LINE + 2]]:8: remark: [Missed] versa-codegen | Category:fallback | Reason="no codegen strategy (a dynamic shape): it becomes plain loops", op="linalg.matmul", operands="tensor<?x16xf32>, tensor<16x16xf32>, tensor<?x16xf32>"
func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<16x16xf32>, %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x16xf32>) outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}
