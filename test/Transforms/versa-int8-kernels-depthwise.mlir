// RUN: versa-opt --versa-int8-kernels="target=x86-64-v4" %s | FileCheck %s
// RUN: versa-opt --versa-int8-kernels="target=x86-64-v3" %s | FileCheck %s --check-prefix=V3
// RUN: versa-opt --versa-int8-kernels="target=x86-64-v4 threads=2" %s | FileCheck %s --check-prefix=T2

// A depthwise i8 conv with constant weights becomes a call of the depthwise kernel
// (cpu/kernels/int8_depthwise.py): each lane pairs one channel's bytes from two input rows
// (vector.shuffle), widened to i16 for vpmaddwd; the filter packed at compile time as
// [C/L, R output rows, Q = 2 row pairs, KW, L·2] (x86-64-v4: 16 lanes, R = 2; AVX2: 8 lanes,
// R = 1, its 16 registers too few for the filters of two rows).
// CHECK-LABEL: func.func private @versa_int8_dot_0
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18, {{.*}}] : vector<16xi8>, vector<16xi8>
// CHECK: arith.extsi %{{.*}} : vector<32xi8> to vector<32xi16>
// CHECK: func.call @llvm.x86.avx512.pmaddw.d.512(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// CHECK-LABEL: func.func @depthwise
// CHECK: call @versa_int8_dot_0(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x6x6x16xi8>, tensor<1x2x2x3x32xi16>, tensor<16xi32>) -> tensor<1x4x4x16xi32>
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc
// With threads: the kernel all the same, (image, row block, channel block) as an scf.forall
// (channel blocks innermost: a row block's input lines serve each of them from cache).
// T2-LABEL: func.func private @versa_int8_dot_0
// T2: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 2, 1) shared_outs
// T2: func.call @llvm.x86.avx512.pmaddw.d.512
// T2: tensor.parallel_insert_slice
// T2-LABEL: func.func @depthwise
// T2: call @versa_int8_dot_0
// T2-NOT: linalg.depthwise_conv_2d_nhwc_hwc
// V3: func.call @llvm.x86.avx2.pmadd.wd(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// V3: call @versa_int8_dot_0(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x6x6x16xi8>, tensor<2x1x2x3x16xi16>, tensor<16xi32>) -> tensor<1x4x4x16xi32>
func.func @depthwise(%x: tensor<1x6x6x16xi8>) -> tensor<1x4x4x16xi32> {
  %w = arith.constant dense<3> : tensor<3x3x16xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x6x16xi8>, tensor<3x3x16xi8>) outs(%f : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  return %0 : tensor<1x4x4x16xi32>
}

// The lowering's flip of a u8 input (xor 0x80) and its zero-point padding (fill, insert_slice):
// the kernel reads the bytes before the flip, unpadded (int8_borders.py: a tap outside them
// reads the fill byte flipped back, 3 ^ 0x80 = -125; the flipped, padded chain is left dead:
// versa-int8-kernels-depthwise-borders.mlir),
// its start values -128·Σw = 2304.
// CHECK-LABEL: func.func @flipped(%arg0
// CHECK: arith.constant dense<2304> : tensor<16xi32>
// CHECK: call @versa_int8_dot_1(%arg0, %{{.*}}, %{{.*}}) : (tensor<1x4x4x16xi8>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @flipped(%u: tensor<1x4x4x16xi8>) -> tensor<1x4x4x16xi32> {
  %flip = arith.constant -128 : i8
  %pad = arith.constant 3 : i8
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<1x4x4x16xi8>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i8, %out: i8):
    %v = arith.xori %in, %flip : i8
    linalg.yield %v : i8
  } -> tensor<1x4x4x16xi8>
  %ep = tensor.empty() : tensor<1x6x6x16xi8>
  %filled = linalg.fill ins(%pad : i8) outs(%ep : tensor<1x6x6x16xi8>) -> tensor<1x6x6x16xi8>
  %xp = tensor.insert_slice %s into %filled[0, 1, 1, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x4x4x16xi8> into tensor<1x6x6x16xi8>
  %w = arith.constant dense<-2> : tensor<3x3x16xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<1x6x6x16xi8>, tensor<3x3x16xi8>) outs(%f : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  return %0 : tensor<1x4x4x16xi32>
}
