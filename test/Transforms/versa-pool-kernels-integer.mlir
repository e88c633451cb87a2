// RUN: versa-opt --versa-pool-kernels="threads=1 target=x86-64-v3" --inline --symbol-dce --canonicalize %s | FileCheck %s
// RUN: versa-opt --versa-pool-kernels="threads=1 target=x86-64-v4" --inline --symbol-dce --canonicalize %s | FileCheck %s --check-prefix=V4

// A ui8 max pool (a quantized stem's, 3x3 stride 2 padding 1): the f32 kernel's body on i8
// vectors, the bytes read as signless i8 through a cast (erase_unsigned drops it later),
// folded with an unsigned max; the padding lane is 0, ui8's minimum. A tile is a row of 20
// outputs: 40 bytes read per input row (32 lanes of AVX2 bytes or 64 of AVX-512 cover it).
// CHECK-LABEL: func.func @max_ui8_3x3_s2_p1
//       CHECK:   %[[PAD:.+]] = arith.constant dense<0> : vector<40xi8>
//       CHECK:   %[[BYTES:.+]] = builtin.unrealized_conversion_cast %arg0 : tensor<1x4x10x40xui8> to tensor<1x4x10x40xi8>
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %[[BYTES]] {{\[\[}}0, 1], [2], [3]] : tensor<1x4x10x40xi8> into tensor<4x10x40xi8>
// Row 0: input rows 0 and 1 (row -1 is padding), lane -1 the pad vector's 0.
//       CHECK:   %[[R0:.+]] = vector.transfer_read %[[X]][%{{.+}}, %c0, %c0], %{{.+}} {in_bounds = [true]} : tensor<4x10x40xi8>, vector<40xi8>
//       CHECK:   %[[R1:.+]] = vector.transfer_read %[[X]][%{{.+}}, %c1, %c0], %{{.+}} {in_bounds = [true]} : tensor<4x10x40xi8>, vector<40xi8>
//       CHECK:   %[[F:.+]] = arith.maxui %[[R0]], %[[R1]] : vector<40xi8>
//       CHECK:   vector.shuffle %[[F]], %[[PAD]] [40, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37] : vector<40xi8>, vector<40xi8>
//       CHECK:   arith.maxui %{{.+}}, %{{.+}} : vector<20xi8>
//       CHECK:   vector.transfer_write %{{.+}}, %{{.+}}[%{{.+}}, %c0, %c0] {in_bounds = [true]} : vector<20xi8>, tensor<4x5x20xi8>
// Rows 1..4: three input rows each.
//       CHECK:   scf.for %{{.+}} = %c1 to %c5 step %c1
//   CHECK-NOT:   arith.maxsi
//   CHECK-NOT:   arith.maximumf
//       CHECK:   %[[Y:.+]] = builtin.unrealized_conversion_cast %{{.+}} : tensor<1x4x5x20xi8> to tensor<1x4x5x20xui8>
//       CHECK:   return %[[Y]]
// V4-LABEL: func.func @max_ui8_3x3_s2_p1
//       V4:   arith.maxui %{{.+}}, %{{.+}} : vector<40xi8>
func.func @max_ui8_3x3_s2_p1(%x: tensor<1x4x10x40xui8>) -> tensor<1x4x5x20xui8> {
  %y = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x10x40xui8>) -> tensor<1x4x5x20xui8>
  return %y : tensor<1x4x5x20xui8>
}

// i8: a signed max, identity -128, no cast. A row of 80 outputs is 3 tiles of 32 bytes on
// AVX2 (the last 16) and 2 of 64 on AVX-512 (the last 16).
// CHECK-LABEL: func.func @max_i8_2x2
//   CHECK-NOT:   unrealized_conversion_cast
//       CHECK:   %[[MIN:.+]] = arith.constant -128 : i8
//       CHECK:   vector.transfer_read %{{.+}}, %[[MIN]] {in_bounds = [true]} : tensor<2x4x160xi8>, vector<64xi8>
//       CHECK:   arith.maxsi %{{.+}}, %{{.+}} : vector<64xi8>
//       CHECK:   vector.transfer_write %{{.+}} {in_bounds = [true]} : vector<32xi8>, tensor<2x2x80xi8>
//       CHECK:   vector.transfer_write %{{.+}} {in_bounds = [true]} : vector<16xi8>, tensor<2x2x80xi8>
//   CHECK-NOT:   unrealized_conversion_cast
// V4-LABEL: func.func @max_i8_2x2
//       V4:   arith.maxsi %{{.+}}, %{{.+}} : vector<128xi8>
//       V4:   vector.transfer_write %{{.+}} {in_bounds = [true]} : vector<64xi8>, tensor<2x2x80xi8>
//       V4:   vector.transfer_write %{{.+}} {in_bounds = [true]} : vector<16xi8>, tensor<2x2x80xi8>
func.func @max_i8_2x2(%x: tensor<1x2x4x160xi8>) -> tensor<1x2x2x80xi8> {
  %y = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x160xi8>) -> tensor<1x2x2x80xi8>
  return %y : tensor<1x2x2x80xi8>
}
