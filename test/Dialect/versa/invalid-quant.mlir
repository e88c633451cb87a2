// RUN: versa-opt %s --split-input-file --verify-diagnostics

// One split per verifier rule of the quantized ops (dialects/ops_quant.py).

func.func @quantize_from_int(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xi8> {
  // expected-error @+1 {{'versa.quantize' op input element type must be f32, got i32}}
  %0 = "versa.quantize"(%x, %s, %z) : (tensor<4xi32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @quantize_result_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xi8> {
  // expected-error @+1 {{'versa.quantize' op result element type i8 differs from the zero point's ui8}}
  %0 = "versa.quantize"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @quantize_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xi8> {
  // expected-error @+1 {{'versa.quantize' op axis 2 is out of range for rank 2}}
  %0 = "versa.quantize"(%x, %s, %z) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @quantize_channels(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xi8> {
  // expected-error @+1 {{'versa.quantize' op per-channel scale has 3 elements, but dim 0 has 2}}
  %0 = "versa.quantize"(%x, %s, %z) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @quantize_parameter_shapes(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<i8>) -> tensor<2x3xi8> {
  // expected-error @+1 {{'versa.quantize' op scale shape [3] differs from zero point shape []}}
  %0 = "versa.quantize"(%x, %s, %z) : (tensor<2x3xf32>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @dequantize_zero_point_type(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.dequantize' op zero point element type ui8 differs from the input's i8}}
  %0 = "versa.dequantize"(%x, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @requantize_clamp(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'versa.requantize' op clamp bounds [-1, 255] must be ordered and within the result type's [0, 255]}}
  %0 = "versa.requantize"(%x, %s, %z) {min = -1 : i64} : (tensor<4xi32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @qmatmul_result(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %z: tensor<i8>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'versa.qmatmul' op result element type must be i32, got i8}}
  %0 = "versa.qmatmul"(%a, %b, %z, %z) : (tensor<2x3xi8>, tensor<3x4xi8>, tensor<i8>, tensor<i8>) -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

func.func @qmatmul_zero_point_rank(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %z: tensor<i8>, %zc: tensor<4xi8>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'versa.qmatmul' op rhs zero point must be 0-d, got [4]}}
  %0 = "versa.qmatmul"(%a, %b, %z, %zc) : (tensor<2x3xi8>, tensor<3x4xi8>, tensor<i8>, tensor<4xi8>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @qmatmul_batch(%a: tensor<2x2x3xi8>, %b: tensor<1x3x4xi8>, %z: tensor<i8>) -> tensor<2x2x4xi32> {
  // expected-error @+1 {{'versa.qmatmul' op rhs must be 2-D or have the lhs's batch dims [2], got [1, 3, 4]}}
  %0 = "versa.qmatmul"(%a, %b, %z, %z) : (tensor<2x2x3xi8>, tensor<1x3x4xi8>, tensor<i8>, tensor<i8>) -> tensor<2x2x4xi32>
  return %0 : tensor<2x2x4xi32>
}

// -----

func.func @qconv2d_float(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xi8>, %z: tensor<i8>) -> tensor<1x3x3x3xi32> {
  // expected-error @+1 {{'versa.qconv2d' op input element type must be i8 or ui8, got f32}}
  %0 = "versa.qconv2d"(%x, %w, %z, %z) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x3x3x3xi32>
  return %0 : tensor<1x3x3x3xi32>
}

// -----

func.func @ui8_elsewhere(%a: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'versa.add' op element type ui8 is not one of f32, f16, bf16, i32, i8, i64, i1}}
  %0 = "versa.add"(%a, %a) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
