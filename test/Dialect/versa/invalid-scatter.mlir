// RUN: versa-opt %s --split-input-file --verify-diagnostics

// One split per verifier rule of versa.scatter (dialects/ops_indexing.py, shapes.scatter).

func.func @scatter_float_indices(%x: tensor<10x4xf32>, %i: tensor<3x1xf32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op indices element type must be i32 or i64, got f32}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<10x4xf32>, tensor<3x1xf32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_updates_shape(%x: tensor<10x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x5xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op updates shape [3, 5] must be [3, 4] (indices.shape[:-1] + input.shape[1:])}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<10x4xf32>, tensor<3x1xi64>, tensor<3x5xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_too_many_coordinates(%x: tensor<10x4xf32>, %i: tensor<3x3xi64>, %u: tensor<3xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op indices' last dim 3 must be in [1, 2] (the input's rank)}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<10x4xf32>, tensor<3x3xi64>, tensor<3xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_rank0_indices(%x: tensor<10x4xf32>, %i: tensor<i64>, %u: tensor<4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op indices must have rank >= 1 (its last dim holds the coordinates)}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<10x4xf32>, tensor<i64>, tensor<4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_rank0_input(%x: tensor<f32>, %i: tensor<1xi64>, %u: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'versa.scatter' op input must have rank >= 1}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<f32>, tensor<1xi64>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scatter_result_shape(%x: tensor<10x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.scatter' op result shape [3, 4] does not match the expected shape [10, 4]}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<10x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @scatter_updates_element(%x: tensor<10x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf16>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op updates element type f16 differs from the result's f32}}
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<10x4xf32>, tensor<3x1xi64>, tensor<3x4xf16>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_bad_reduction(%x: tensor<10x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op attribute 'reduction' must be one of 'none', 'add', 'max', 'min', got "mul"}}
  %0 = "versa.scatter"(%x, %i, %u) {reduction = "mul"} : (tensor<10x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_add_i1(%x: tensor<10xi1>, %i: tensor<3x1xi64>, %u: tensor<3xi1>) -> tensor<10xi1> {
  // expected-error @+1 {{'versa.scatter' op reduction 'add' needs a numeric element type, got i1}}
  %0 = "versa.scatter"(%x, %i, %u) {reduction = "add"} : (tensor<10xi1>, tensor<3x1xi64>, tensor<3xi1>) -> tensor<10xi1>
  return %0 : tensor<10xi1>
}

// -----

func.func @scatter_operands(%x: tensor<10x4xf32>, %i: tensor<3x1xi64>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'versa.scatter' op expects exactly 3 operands, but got 2}}
  %0 = "versa.scatter"(%x, %i) : (tensor<10x4xf32>, tensor<3x1xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
