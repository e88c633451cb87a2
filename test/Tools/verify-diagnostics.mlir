// RUN: versa-opt %s --split-input-file --verify-diagnostics
// RUN: sed -e 's/prior use here/no such note/' %s | not versa-opt - --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=MISMATCH

// MISMATCH: error: unexpected note: prior use here
// MISMATCH: error: expected note "no such note" was not produced

// expected-note @+1 {{prior use here}}
func.func @note_and_error(%a: tensor<4xf32>) {
  %0 = "versa.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{expects different type than prior uses}}
  %1 = "versa.exp"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @above(%a: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "versa.exp"(%a) : (tensor<4xf32>) -> tensor<3xf32>
  // expected-error @above {{result shape [3] does not match the expected shape [4]}}
  return %0 : tensor<3xf32>
}

// -----

func.func @below(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @below {{result shape [3] does not match}}
  %0 = "versa.exp"(%a) : (tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @+3 {{not broadcast-compatible}}

func.func @plus_n(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @minus_n(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.transpose"(%a) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>

  // expected-error @-2 {{is not a permutation}}
  return %0 : tensor<2x3xf32>
}
