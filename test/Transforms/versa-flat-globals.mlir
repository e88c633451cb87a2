// RUN: versa-opt %s --versa-flat-globals | FileCheck %s

// A constant global whose rows are short (here 4 floats; packed weights: 16-64) is stored as
// one flat array, which LLVM emits as a single constant instead of one per row; each use reads
// it through an expand_shape back to its shape (a view). Long rows, splats and mutable globals
// stay as they are.
// CHECK: memref.global "private" constant @packed : memref<24xf32> = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]>
// CHECK: memref.global "private" constant @splat : memref<2x3x4xf32> = dense<1.000000e+00>
// CHECK: memref.global "private" @state : memref<2x4xf32>
// CHECK-LABEL: func.func @read
// CHECK: %[[FLAT:.+]] = memref.get_global @packed : memref<24xf32>
// CHECK: %[[VIEW:.+]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : memref<24xf32> into memref<2x3x4xf32>
// CHECK: memref.load %[[VIEW]]
// CHECK: memref.get_global @splat : memref<2x3x4xf32>
memref.global "private" constant @packed : memref<2x3x4xf32> = dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]>
memref.global "private" constant @splat : memref<2x3x4xf32> = dense<1.0>
memref.global "private" @state : memref<2x4xf32> = dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]>
func.func @read(%i: index) -> (f32, f32) {
  %g = memref.get_global @packed : memref<2x3x4xf32>
  %a = memref.load %g[%i, %i, %i] : memref<2x3x4xf32>
  %s = memref.get_global @splat : memref<2x3x4xf32>
  %b = memref.load %s[%i, %i, %i] : memref<2x3x4xf32>
  return %a, %b : f32, f32
}
