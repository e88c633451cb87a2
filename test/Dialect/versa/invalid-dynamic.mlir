// RUN: versa-opt %s --split-input-file --verify-diagnostics

// What the rules reject statically with dynamic dims (dialects/shapes.py).

func.func @dynamic_result_of_static_broadcast(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'versa.add' op result shape [?, 8] does not match the expected shape [4, 8]}}
  %0 = "versa.add"(%a, %b) : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @static_k_differs(%a: tensor<?x64xf32>, %b: tensor<32x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'versa.matmul' op contraction dims differ: K = 64 (lhs) vs 32 (rhs)}}
  %0 = "versa.matmul"(%a, %b) : (tensor<?x64xf32>, tensor<32x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_unpaired_dynamic_dims(%x: tensor<?x768xf32>) -> tensor<?x?x64xf32> {
  // expected-error @+1 {{'versa.reshape' op reshape [?, 768] to [?, ?, 64]: with several dynamic result dims, the input must have as many dynamic dims}}
  %0 = "versa.reshape"(%x) : (tensor<?x768xf32>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

func.func @reshape_segments_differ(%x: tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32> {
  // expected-error @+1 {{'versa.reshape' op reshape [?, ?, 768] to [?, 12, ?, 64]: the static dims between dynamic ones must keep their element counts}}
  %0 = "versa.reshape"(%x) : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
  return %0 : tensor<?x12x?x64xf32>
}

// -----

func.func @conv_dynamic_channels(%x: tensor<1x?x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op the input's channel dim 1 must be static}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x?x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @broadcast_to_new_dynamic_dim(%x: tensor<8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op shape [8] cannot broadcast to [?, 8]: a dynamic result dim must be a dynamic input dim}}
  %0 = "versa.broadcast_to"(%x) : (tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @dynamic_iota() -> tensor<?xi64> {
  // expected-error @+1 {{'versa.iota' op the result shape must be static (no 'like' operand)}}
  %0 = "versa.iota"() {axis = 0 : i64} : () -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @iota_like_without_dims(%x: tensor<?x?xi64>) -> tensor<?xi64> {
  // expected-error @+1 {{'versa.iota' op requires attribute 'dims' with a 'like' operand}}
  %0 = "versa.iota"(%x) {axis = 0 : i64} : (tensor<?x?xi64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @iota_dims_without_like() -> tensor<4xi64> {
  // expected-error @+1 {{'versa.iota' op attribute 'dims' needs a 'like' operand to read dims from}}
  %0 = "versa.iota"() {axis = 0 : i64, dims = array<i64: 0>} : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @iota_like_dim_out_of_range(%x: tensor<?x?xi64>) -> tensor<?xi64> {
  // expected-error @+1 {{'versa.iota' op 'dims' entry 2 is no dim of 'like' (rank 2) nor -1}}
  %0 = "versa.iota"(%x) {axis = 0 : i64, dims = array<i64: 2>} : (tensor<?x?xi64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @iota_like_dynamic_unread(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  // expected-error @+1 {{'versa.iota' op result dim 1 is dynamic, but 'dims' gives it -1}}
  %0 = "versa.iota"(%x) {axis = 0 : i64, dims = array<i64: 0, -1>} : (tensor<?x?xi64>) -> tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

// -----

func.func @iota_like_wrong_size(%x: tensor<?x8xi64>) -> tensor<?x4xi64> {
  // expected-error @+1 {{'versa.iota' op result shape [?, 4] does not match the expected shape [?, 8]}}
  %0 = "versa.iota"(%x) {axis = 1 : i64, dims = array<i64: 0, 1>} : (tensor<?x8xi64>) -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}
