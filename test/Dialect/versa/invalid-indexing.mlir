// RUN: versa-opt %s --split-input-file --verify-diagnostics

// One split per verifier rule of the comparison, logic and indexing ops (dialects/ops_logical.py,
// ops_indexing.py), and of the i1 element type in arithmetic.

// ----------------------------------------------------------------------------- i1

func.func @add_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.add' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.add"(%a, %a) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @reduce_sum_i1(%a: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'versa.reduce_sum' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.reduce_sum"(%a) {axes = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// ----------------------------------------------------------------------------- compare

func.func @compare_no_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.compare' op requires attribute 'predicate'}}
  %0 = "versa.compare"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_bad_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.compare' op attribute 'predicate' must be one of 'eq', 'ne', 'lt', 'le', 'gt', 'ge', got "lte"}}
  %0 = "versa.compare"(%a, %a) {predicate = "lte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_mixed_types(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.compare' op operand element types differ: f32 vs i32}}
  %0 = "versa.compare"(%a, %b) {predicate = "eq"} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result_not_i1(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.compare' op result element type must be i1, got f32}}
  %0 = "versa.compare"(%a, %a) {predicate = "gt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xi1> {
  // expected-error @+1 {{'versa.compare' op operand shapes [4, 3] and [4] are not broadcast-compatible (dim 1: 3 vs 4)}}
  %0 = "versa.compare"(%a, %b) {predicate = "ge"} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xi1>
  return %0 : tensor<4x3xi1>
}

// ----------------------------------------------------------------------------- select

func.func @select_condition_not_i1(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.select' op condition element type must be i1, got f32}}
  %0 = "versa.select"(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_branch_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.select' op on_false element type f16 differs from the result's f32}}
  %0 = "versa.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_shape(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<1xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'versa.select' op result shape [3] does not match the expected shape [2, 3]}}
  %0 = "versa.select"(%c, %a, %b) : (tensor<2x1xi1>, tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// ----------------------------------------------------------------------------- and, or, not

func.func @and_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.and' op expects i1 or an integer element type, got f32}}
  %0 = "versa.and"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @or_mixed(%a: tensor<4xi1>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.or' op operand element type i32 differs from the result's i1}}
  %0 = "versa.or"(%a, %b) : (tensor<4xi1>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @not_result_type(%a: tensor<4xi1>) -> tensor<4xi8> {
  // expected-error @+1 {{'versa.not' op operand element type i1 differs from the result's i8}}
  %0 = "versa.not"(%a) : (tensor<4xi1>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// ----------------------------------------------------------------------------- gather

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.gather' op indices element type must be i32 or i64, got f32}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.gather' op axis 2 is out of range for rank 2}}
  %0 = "versa.gather"(%t, %i) {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_shape(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<10x6xf32> {
  // expected-error @+1 {{'versa.gather' op result shape [10, 6] does not match the expected shape [10, 2, 3]}}
  %0 = "versa.gather"(%t, %i) {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<10x6xf32>
  return %0 : tensor<10x6xf32>
}

// -----

func.func @gather_empty_axis(%t: tensor<0x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.gather' op cannot gather from dim 0 of size 0}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<0x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_element_type(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf16> {
  // expected-error @+1 {{'versa.gather' op input element type f32 differs from the result's f16}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

func.func @gather_rank0(%t: tensor<f32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{'versa.gather' op input must have rank >= 1}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<f32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// ----------------------------------------------------------------------------- iota

func.func @iota_no_axis() -> tensor<4xi64> {
  // expected-error @+1 {{'versa.iota' op requires attribute 'axis'}}
  %0 = "versa.iota"() : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @iota_axis() -> tensor<4x2xi64> {
  // expected-error @+1 {{'versa.iota' op axis -3 is out of range for rank 2}}
  %0 = "versa.iota"() {axis = -3 : i64} : () -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

func.func @iota_rank0() -> tensor<i64> {
  // expected-error @+1 {{'versa.iota' op result must have rank >= 1}}
  %0 = "versa.iota"() {axis = 0 : i64} : () -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @iota_i1() -> tensor<4xi1> {
  // expected-error @+1 {{'versa.iota' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.iota"() {axis = 0 : i64} : () -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// ----------------------------------------------------------------------------- reduce_argmax

func.func @argmax_result_type(%x: tensor<3x4xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{'versa.reduce_argmax' op result element type must be i64, got i32}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @argmax_keepdims_shape(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'versa.reduce_argmax' op result shape [3] does not match the expected shape [3, 1]}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64, keepdims = true} : (tensor<3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @argmax_empty(%x: tensor<3x0xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'versa.reduce_argmax' op cannot take the argmax over dim 1 of size 0}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x0xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @argmax_i1(%x: tensor<3x4xi1>) -> tensor<3xi64> {
  // expected-error @+1 {{'versa.reduce_argmax' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x4xi1>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// ----------------------------------------------------------------------------- cumsum

func.func @cumsum_axis(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.cumsum' op axis 2 is out of range for rank 2}}
  %0 = "versa.cumsum"(%x) {axis = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @cumsum_result_type(%x: tensor<3x4xi32>) -> tensor<3x4xi64> {
  // expected-error @+1 {{'versa.cumsum' op operand element type i32 differs from the result's i64}}
  %0 = "versa.cumsum"(%x) {axis = 0 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}

// -----

func.func @cumsum_i1(%x: tensor<3x4xi1>) -> tensor<3x4xi1> {
  // expected-error @+1 {{'versa.cumsum' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.cumsum"(%x) {axis = 0 : i64} : (tensor<3x4xi1>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>
}

// ----------------------------------------------------------------------------- conv_transpose2d

func.func @conv_transpose2d_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op filter has 3 input channels, expected 4 (the input's dim 1)}}
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}

// -----

func.func @conv_transpose2d_empty_window(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x0xf32>) -> tensor<1x2x7x4xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op filter window 3x0 is empty}}
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xf32>, tensor<4x2x3x0xf32>) -> tensor<1x2x7x4xf32>
  return %0 : tensor<1x2x7x4xf32>
}

// -----

func.func @conv_transpose2d_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x3x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op groups = 3 does not divide input channels 4}}
  %0 = "versa.conv_transpose2d"(%x, %w) {groups = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}

// -----

func.func @conv_transpose2d_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x13x11xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op output_padding 2 of the height must be smaller than its stride or dilation}}
  %0 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, output_padding = array<i64: 2, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x13x11xf32>
  return %0 : tensor<1x2x13x11xf32>
}

// -----

func.func @conv_transpose2d_padding(%x: tensor<1x4x2x2xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op output height -2 is not positive (padding too large)}}
  %0 = "versa.conv_transpose2d"(%x, %w) {padding = array<i64: 2, 0, 2, 0>} : (tensor<1x4x2x2xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

func.func @conv_transpose2d_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op result shape [1, 2, 7, 7] does not match the expected shape [1, 2, 11, 11]}}
  %0 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

func.func @conv_transpose2d_output_padding_length(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op attribute 'output_padding' must have 2 elements, got 1}}
  %0 = "versa.conv_transpose2d"(%x, %w) {output_padding = array<i64: 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

func.func @conv_transpose2d_integer(%x: tensor<1x4x5x5xi32>, %w: tensor<4x2x3x3xi32>) -> tensor<1x2x7x7xi32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op expects a float element type, got i32}}
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xi32>, tensor<4x2x3x3xi32>) -> tensor<1x2x7x7xi32>
  return %0 : tensor<1x2x7x7xi32>
}
