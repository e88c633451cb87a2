// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v4' | FileCheck %s

// Kernels that are one function up to their name share it (strategies/sharing.py): two
// identical matmuls become one private, noinline kernel whose transform script ran once, and
// both calls stay.
// CHECK-LABEL: func.func @same
//       CHECK:   call @[[K:__versa_kernel_[0-9]+]](%arg0, %arg1)
//       CHECK:   call @[[K]](%arg0, %arg2)
//   CHECK-NOT:   linalg.matmul
//       CHECK: func.func private @[[K]](%{{.+}}: tensor<8x16xf32>, %{{.+}}: tensor<16x8xf32>) -> tensor<8x8xf32>
//  CHECK-SAME:   llvm.linkage = #llvm.linkage<internal>, llvm.no_inline
//       CHECK:   vector.fma
//   CHECK-NOT: func.func private @__versa_kernel
func.func @same(%x: tensor<8x16xf32>, %w0: tensor<16x8xf32>, %w1: tensor<16x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x8xf32>
  %f0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y0 = linalg.matmul ins(%x, %w0 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y0, %y1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Weights as constants (as versa.compile imports a model's): the kernels differ only in them,
// so the constant becomes an argument of the shared kernel and each call passes its own.
// CHECK-LABEL: func.func @weights
//       CHECK:   %[[W0:.+]] = arith.constant dense<"0x0000000000000000
//       CHECK:   %[[W1:.+]] = arith.constant dense<"0x000080BE0000403F
//       CHECK:   call @[[K:__versa_kernel_[0-9]+]](%arg0, %[[W0]])
//       CHECK:   call @[[K]](%arg0, %[[W1]])
//       CHECK: func.func private @[[K]](%{{.+}}: tensor<8x16xf32>, %{{.+}}: tensor<16x8xf32>) -> tensor<8x8xf32>
//   CHECK-NOT:   dense<"0x
//       CHECK:   return
func.func @weights(%x: tensor<8x16xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %w0 = arith.constant dense<"0x00000000000000000000003F0000803F000080BF000040BF0000403F0000803F000000BF000000BF0000403F000080BE000000BF0000403F000000BF000080BE0000803E00000000000080BF000080BF0000403F0000003F0000403F000000000000403F000000BF000000000000403F000040BF000000BF000040BF000000000000803F000040BF000080BE000080BE0000803F000040BF00000000000000BF000080BF0000003F000080BF000000BF0000000000000000000040BF0000803F0000003F0000803F000080BF0000003F000000BF000000000000803F000000BF0000003F000040BF000000BF0000803F000080BE00000000000000BF000040BF000080BE0000803E000000000000003F000080BE0000803E0000003F0000803F000080BE000080BF0000003F000000000000403F00000000000080BE000080BF000000000000803E0000003F0000403F000040BF0000803E0000403F000000BF000080BE0000403F0000803E000000000000003F000000000000803F0000003F000080BF000040BF000000000000403F000080BF0000003F0000003F0000403F0000403F000040BF000000000000403F000080BE000040BF00000000000080BF000040BF0000403F0000003F0000403F0000403F0000403F000000BF000000000000803E000000BF0000803F000080BF0000403F0000803E000000BF0000003F"> : tensor<16x8xf32>
  %w1 = arith.constant dense<"0x000080BE0000403F0000803F000000BF00000000000040BF0000003F0000803E0000403F0000403F0000803F0000803F0000803F000040BF000080BF00000000000080BE0000803F0000403F000080BE0000803E0000803E0000803F000080BF000000000000003F000000000000803F0000803F0000403F000000000000403F000080BF0000803E000000BF000000BF0000003F0000003F0000403F000040BF0000403F0000403F000000BF000080BF0000003F0000403F00000000000040BF000040BF000080BE0000003F000000BF000080BF0000003F0000003F000040BF0000803E000080BE00000000000080BF0000803E000000BF00000000000080BE0000803E000080BF000080BE0000803E0000003F000080BE000080BF0000003F000000000000803E000040BF000080BE0000403F0000403F000000BF0000803E000080BF0000403F000000BF000080BE0000803F000000000000403F000040BF0000003F0000803F000080BF000000BF000040BF000000BF000000BF000080BF0000803F000000BF0000803F0000003F000040BF0000003F0000003F000040BF000040BF000080BE000080BF000080BE000000000000803E0000803E00000000000040BF0000803E000000000000403F0000003F0000003F0000803E000080BE000000BF000000000000803E000080BE000040BF000080BF000080BF000040BF"> : tensor<16x8xf32>
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x8xf32>
  %f0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y0 = linalg.matmul ins(%x, %w0 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y0, %y1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Kernels of different shapes are inlined back, as a kernel used once always is.
// CHECK-LABEL: func.func @different
//   CHECK-NOT:   call
//       CHECK:   vector.fma
//   CHECK-NOT: func.func private
func.func @different(%x: tensor<8x16xf32>, %w0: tensor<16x8xf32>, %w1: tensor<16x16xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x8xf32>
  %f0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y0 = linalg.matmul ins(%x, %w0 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y0, %y1 : tensor<8x8xf32>, tensor<8x16xf32>
}
