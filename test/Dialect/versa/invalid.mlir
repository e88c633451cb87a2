// RUN: versa-opt %s --split-input-file --verify-diagnostics

// One split per verifier rule of the versa dialect (dialects/versa.py, attributes.py, shapes.py).

// ----------------------------------------------------------------------------- broadcasting

func.func @broadcast_incompatible(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'versa.add' op operand shapes [4, 8] and [3, 8] are not broadcast-compatible (dim 0: 4 vs 3)}}
  %0 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @broadcast_result_shape(%a: tensor<4x1xf32>, %b: tensor<8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'versa.mul' op result shape [4, 1] does not match the expected shape [4, 8]}}
  %0 = "versa.mul"(%a, %b) : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// ----------------------------------------------------------------------------- element types

func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.add' op operand element type f16 differs from the result's f32}}
  %0 = "versa.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @element_type_result_mismatch(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'versa.relu' op operand element type f32 differs from the result's f16}}
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @unsupported_element_type(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'versa.neg' op element type f64 is not one of f32, f16, bf16, i32, i8, i64, i1}}
  %0 = "versa.neg"(%a) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @unsupported_element_type_cast(%a: tensor<4xf32>) -> tensor<4xi16> {
  // expected-error @+1 {{'versa.cast' op element type i16 is not one of f32, f16, bf16, i32, i8, i64, i1}}
  %0 = "versa.cast"(%a) : (tensor<4xf32>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @float_only_unary(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'versa.exp' op expects a float element type, got i32}}
  %0 = "versa.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @float_only_floor(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'versa.floor' op expects a float element type, got i32}}
  %0 = "versa.floor"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @float_only_sin(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'versa.sin' op expects a float element type, got i64}}
  %0 = "versa.sin"(%a) : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @sign_of_booleans(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.sign' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.sign"(%a) : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @round_changes_type(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'versa.round' op operand element type f32 differs from the result's f16}}
  %0 = "versa.round"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @float_only_pow(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'versa.pow' op expects a float element type, got i8}}
  %0 = "versa.pow"(%a, %a) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @float_only_matmul(%a: tensor<4x4xi32>) -> tensor<4x4xi32> {
  // expected-error @+1 {{'versa.matmul' op expects a float element type, got i32}}
  %0 = "versa.matmul"(%a, %a) : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

func.func @float_only_reduce_mean(%a: tensor<4x4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'versa.reduce_mean' op expects a float element type, got i32}}
  %0 = "versa.reduce_mean"(%a) {axes = array<i64: 0>} : (tensor<4x4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @result_shape_mismatch(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'versa.relu' op result shape [4, 4] does not match the expected shape [4, 8]}}
  %0 = "versa.relu"(%a) : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// ----------------------------------------------------------------------------- constant

func.func @constant_value_type_mismatch() -> tensor<4xf32> {
  // expected-error @+1 {{'versa.constant' op value type tensor<2xf32> differs from the result type tensor<4xf32>}}
  %0 = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_value_not_dense() -> tensor<4xf32> {
  // expected-error @+1 {{'versa.constant' op attribute 'value' must be dense elements}}
  %0 = "versa.constant"() {value = 1.0 : f32} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// ----------------------------------------------------------------------------- attribute kinds

func.func @attr_kind_strides_not_dense_array(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'strides' must be an array<i64: ...>, got [1, 1]}}
  %0 = "versa.conv2d"(%x, %w) {strides = [1, 1]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @attr_kind_int_is_float(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op attribute 'axis' must be an integer, got 1.000000e+00 : f32}}
  %0 = "versa.softmax"(%x) {axis = 1.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @attr_kind_int_is_bool(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op attribute 'axis' must be an integer, got true}}
  %0 = "versa.softmax"(%x) {axis = true} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @attr_kind_float_is_int(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.clamp' op attribute 'min' must be a float, got 0 : i64}}
  %0 = "versa.clamp"(%x) {min = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @attr_kind_bool_is_int(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'versa.reduce_sum' op attribute 'keepdims' must be true or false, got 1 : i64}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @attr_kind_enum_value(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.gelu' op attribute 'approximate' must be one of 'none', 'tanh', got "erf"}}
  %0 = "versa.gelu"(%x) {approximate = "erf"} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @attr_kind_enum_not_string(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.gelu' op attribute 'approximate' must be one of 'none', 'tanh', got 1 : i64}}
  %0 = "versa.gelu"(%x) {approximate = 1 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @missing_required_attr(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op requires attribute 'axis'}}
  %0 = "versa.softmax"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @missing_required_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op requires attribute 'kernel'}}
  %0 = "versa.max_pool2d"(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// ----------------------------------------------------------------------------- clamp

func.func @clamp_min_greater_than_max(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.clamp' op min 6.0 is greater than max 0.0}}
  %0 = "versa.clamp"(%x) {min = 6.0 : f32, max = 0.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// ----------------------------------------------------------------------------- matmul

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.matmul' op operands must have rank >= 2}}
  %0 = "versa.matmul"(%a, %b) : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<6x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'versa.matmul' op contraction dims differ: K = 8 (lhs) vs 6 (rhs)}}
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @matmul_batch_broadcast(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{'versa.matmul' op operand shapes [2] and [3] are not broadcast-compatible}}
  %0 = "versa.matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// ----------------------------------------------------------------------------- conv2d

func.func @conv2d_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op input and filter must have rank 4}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op filter has 2 input channels per group, expected 3 (= 3 channels / 1 groups)}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// NHWC reads the filter as [KH, KW, C/groups, F].
func.func @conv2d_channels_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{'versa.conv2d' op filter has 2 input channels per group, expected 3 (= 3 channels / 1 groups)}}
  %0 = "versa.conv2d"(%x, %w) {layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @conv2d_groups_input_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op groups = 4 does not divide input channels 6}}
  %0 = "versa.conv2d"(%x, %w) {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_groups_output_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op groups = 4 does not divide output channels 6}}
  %0 = "versa.conv2d"(%x, %w) {groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_groups_positive(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'groups' must be positive, got 0}}
  %0 = "versa.conv2d"(%x, %w) {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A filter without a window (KH or KW = 0) is refused, as pooling kernels are.
func.func @conv2d_empty_window(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x0x3xf32>) -> tensor<1x3x6x3xf32> {
  // expected-error @+1 {{'versa.conv2d' op filter window 0x3 is empty}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x2x5x5xf32>, tensor<3x2x0x3xf32>) -> tensor<1x3x6x3xf32>
  return %0 : tensor<1x3x6x3xf32>
}

// -----

func.func @conv2d_window_fit(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op window of extent 3 does not fit in padded height = 2}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}

// -----

func.func @conv2d_dilated_window_fit(%x: tensor<1x3x8x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x1xf32> {
  // expected-error @+1 {{'versa.conv2d' op window of extent 5 does not fit in padded width = 4}}
  %0 = "versa.conv2d"(%x, %w) {dilations = array<i64: 2, 2>} : (tensor<1x3x8x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}

// -----

func.func @conv2d_strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'strides' must have 2 elements, got 3}}
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_padding_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'padding' must have 4 elements, got 2}}
  %0 = "versa.conv2d"(%x, %w) {padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @conv2d_dilations_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'dilations' must have 2 elements, got 1}}
  %0 = "versa.conv2d"(%x, %w) {dilations = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_strides_positive(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'strides' must be positive, got [1, 0]}}
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_dilations_positive(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'dilations' must be positive, got [-1, 1]}}
  %0 = "versa.conv2d"(%x, %w) {dilations = array<i64: -1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_layout_enum(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'layout' must be one of 'NCHW', 'NHWC', got "CHWN"}}
  %0 = "versa.conv2d"(%x, %w) {layout = "CHWN"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'versa.conv2d' op result shape [1, 4, 8, 8] does not match the expected shape [1, 4, 6, 6]}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// ----------------------------------------------------------------------------- pooling

func.func @pool_padding_not_below_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x11x9xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op padding must be smaller than the kernel}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0, 2, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x11x9xf32>
  return %0 : tensor<1x3x11x9xf32>
}

// -----

func.func @pool_rank(%x: tensor<3x8x8xf32>) -> tensor<3x4x4xf32> {
  // expected-error @+1 {{'versa.avg_pool2d' op input must have rank 4}}
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 2, 2>} : (tensor<3x8x8xf32>) -> tensor<3x4x4xf32>
  return %0 : tensor<3x4x4xf32>
}

// -----

func.func @pool_kernel_positive(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'versa.avg_pool2d' op attribute 'kernel' must be positive, got [0, 1]}}
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @pool_kernel_length(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op attribute 'kernel' must have 2 elements, got 3}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @pool_window_fit(%x: tensor<1x3x8x2xf32>) -> tensor<1x3x6x1xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op window of extent 3 does not fit in padded width = 2}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>} : (tensor<1x3x8x2xf32>) -> tensor<1x3x6x1xf32>
  return %0 : tensor<1x3x6x1xf32>
}

// -----

func.func @pool_layout_enum(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'versa.avg_pool2d' op attribute 'layout' must be one of 'NCHW', 'NHWC', got "nhwc"}}
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "nhwc"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// ----------------------------------------------------------------------------- reductions

func.func @reduce_axis_out_of_range(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'versa.reduce_sum' op reduction axis 2 is out of range for rank 2}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 2>} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_negative_axis_out_of_range(%x: tensor<2x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.reduce_max' op reduction axis -3 is out of range for rank 2}}
  %0 = "versa.reduce_max"(%x) {axes = array<i64: -3>} : (tensor<2x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_axes_repeat(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'versa.reduce_mean' op reduction axes [1, -1] repeat a dim}}
  %0 = "versa.reduce_mean"(%x) {axes = array<i64: 1, -1>} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_keepdims_result(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'versa.reduce_sum' op result shape [2] does not match the expected shape [2, 1]}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// ----------------------------------------------------------------------------- softmax, layer_norm

func.func @softmax_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op axis 2 is out of range for rank 2}}
  %0 = "versa.softmax"(%x) {axis = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op axis -3 is out of range for rank 2}}
  %0 = "versa.layer_norm"(%x, %g, %g) {axis = -3 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_gamma_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op gamma shape [8] must equal the normalised dims [4, 8]}}
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_beta_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op beta shape [4] must equal the normalised dims [8]}}
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_epsilon_positive(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op attribute 'epsilon' must be positive, got 0.0}}
  %0 = "versa.layer_norm"(%x, %g, %g) {axis = 1 : i64, epsilon = 0.0 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_missing_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op requires attribute 'epsilon'}}
  %0 = "versa.layer_norm"(%x, %g, %g) {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// ----------------------------------------------------------------------------- batch_norm

func.func @batch_norm_rank(%x: tensor<2x3x4xf32>, %p: tensor<3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op input must have rank 4}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @batch_norm_param_shape(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>, %v: tensor<4xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op variance shape [4] must be [3] (the channel dim of NCHW)}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %v) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @batch_norm_param_shape_nhwc(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op scale shape [3] must be [4] (the channel dim of NHWC)}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32, layout = "NHWC"} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @batch_norm_param_rank(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>, %m: tensor<1x3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op mean shape [1, 3] must be [3] (the channel dim of NCHW)}}
  %0 = "versa.batch_norm"(%x, %p, %p, %m, %p) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @batch_norm_epsilon_positive(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op attribute 'epsilon' must be positive, got -1.0}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = -1.0 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// ----------------------------------------------------------------------------- transpose, reshape, broadcast_to

func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) -> tensor<3x3x4xf32> {
  // expected-error @+1 {{'versa.transpose' op perm [1, 1, 2] is not a permutation of 0..2}}
  %0 = "versa.transpose"(%x) {perm = array<i64: 1, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<3x3x4xf32>
  return %0 : tensor<3x3x4xf32>
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+1 {{'versa.transpose' op attribute 'perm' must have 3 elements, got 2}}
  %0 = "versa.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'versa.transpose' op result shape [2, 3, 4] does not match the expected shape [4, 3, 2]}}
  %0 = "versa.transpose"(%x) {perm = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @reshape_element_count(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'versa.reshape' op element count differs: 24 (input) vs 25 (result)}}
  %0 = "versa.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op cannot broadcast rank 3 to lower rank 2}}
  %0 = "versa.broadcast_to"(%x) : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op operand shapes [2, 4] and [3, 4] are not broadcast-compatible (dim 0: 2 vs 3)}}
  %0 = "versa.broadcast_to"(%x) : (tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A broadcast that would stretch the result, not the input.
func.func @broadcast_to_shrinks(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op shape [3, 4] cannot broadcast to [1, 4]}}
  %0 = "versa.broadcast_to"(%x) : (tensor<3x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// ----------------------------------------------------------------------------- concat

func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'versa.concat' op axis 2 is out of range for rank 2}}
  %0 = "versa.concat"(%a, %a) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'versa.concat' op operands must have the same rank}}
  %0 = "versa.concat"(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'versa.concat' op operand shapes differ outside the concatenation axis 0}}
  %0 = "versa.concat"(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result_shape(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'versa.concat' op result shape [2, 3] does not match the expected shape [4, 3]}}
  %0 = "versa.concat"(%a, %a) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// ----------------------------------------------------------------------------- slice, pad

func.func @slice_limit_beyond_size(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op dim 1: need 0 <= start (0) <= limit (11) <= size (10)}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 8, 11>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @slice_start_after_limit(%x: tensor<8x10xf32>) -> tensor<0x10xf32> {
  // expected-error @+1 {{'versa.slice' op dim 0: need 0 <= start (5) <= limit (4) <= size (8)}}
  %0 = "versa.slice"(%x) {starts = array<i64: 5, 0>, limits = array<i64: 4, 10>} : (tensor<8x10xf32>) -> tensor<0x10xf32>
  return %0 : tensor<0x10xf32>
}

// -----

func.func @slice_negative_start(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op dim 0: need 0 <= start (-1) <= limit (8) <= size (8)}}
  %0 = "versa.slice"(%x) {starts = array<i64: -1, 0>, limits = array<i64: 8, 10>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @slice_stride(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op stride 0 of dim 1 must be positive}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 8, 10>, strides = array<i64: 1, 0>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @slice_starts_length(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op attribute 'starts' must have 2 elements, got 1}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0>, limits = array<i64: 8, 10>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @slice_result_shape(%x: tensor<8x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'versa.slice' op result shape [4, 10] does not match the expected shape [3, 10]}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 8, 10>, strides = array<i64: 3, 1>} : (tensor<8x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @pad_negative(%x: tensor<4x4xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'versa.pad' op padding amounts must be non-negative}}
  %0 = "versa.pad"(%x) {low = array<i64: -1, 0>, high = array<i64: 0, 1>} : (tensor<4x4xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @pad_length(%x: tensor<4x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'versa.pad' op attribute 'high' must have 2 elements, got 1}}
  %0 = "versa.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0>} : (tensor<4x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @pad_value_kind(%x: tensor<4x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'versa.pad' op attribute 'value' must be a float, got "zero"}}
  %0 = "versa.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0, 0>, value = "zero"} : (tensor<4x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// ----------------------------------------------------------------------------- fused, yield

// The region captures its inputs from the enclosing block; it takes no block arguments.
func.func @fused_block_args(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region block must have no arguments (inputs are captured from the enclosing block)}}
  %0 = "versa.fused"() ({
  ^bb0(%x: tensor<4xf32>):
    "versa.yield"(%x) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_yield_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op 'versa.yield' operand types must match the result types}}
  %0 = "versa.fused"() ({
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%1, %1) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_yield_shape(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.fused' op 'versa.yield' operand types must match the result types}}
  %0 = "versa.fused"() ({
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%1) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @fused_no_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region must end with 'versa.yield'}}
  %0 = "versa.fused"() ({
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_empty_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region must have exactly one block}}
  %0 = "versa.fused"() ({
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_two_blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region must have exactly one block}}
  %0 = "versa.fused"() ({
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  ^bb1:
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_elementwise_only(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'versa.fused' op an elementwise group may hold only elementwise versa ops, found 'versa.matmul'}}
  %0 = "versa.fused"() ({
    %1 = "versa.matmul"(%a, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "versa.yield"(%1) : (tensor<4x4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @fused_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op attribute 'kind' must be one of 'elementwise', 'epilogue', 'reduction', got "loop"}}
  %0 = "versa.fused"() ({
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  }) {kind = "loop"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_body_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.fused"() ({
    // expected-error @+1 {{'versa.relu' op result shape [8] does not match the expected shape [4]}}
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<8xf32>
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside_fused(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.yield' op expects parent op 'versa.fused'}}
  "versa.yield"(%a) : (tensor<4xf32>) -> ()
}

// ----------------------------------------------------------------------------- signatures

func.func @unranked_operand(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'versa.relu' op expects ranked tensors, got tensor<*xf32>}}
  %0 = "versa.relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @operand_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects exactly 1 operands, but got 2}}
  %0 = "versa.relu"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @operand_not_tensor(%a: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{'versa.relu' op expects ranked tensors, got vector<4xf32>}}
  %0 = "versa.relu"(%a) : (vector<4xf32>) -> vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

func.func @conv2d_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'padding' must be non-negative, got [-1, 0, -1, 0]}}
  %0 = "versa.conv2d"(%x, %w) {padding = array<i64: -1, 0, -1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32>
  return %0 : tensor<1x4x4x6xf32>
}

// -----

func.func @max_pool2d_negative_padding(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x8xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op attribute 'padding' must be non-negative, got [-1, 0, -1, 0]}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 1, 1>, padding = array<i64: -1, 0, -1, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x8xf32>
  return %0 : tensor<1x3x6x8xf32>
}

// -----

// As NumPy: a 0-d tensor has no axis 0.
func.func @reduce_sum_axis_of_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'versa.reduce_sum' op reduction axis 0 is out of range for rank 0}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @softmax_axis_of_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'versa.softmax' op axis 0 is out of range for rank 0}}
  %0 = "versa.softmax"(%x) {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
