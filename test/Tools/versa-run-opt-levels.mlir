// versa-run at every optimisation level and thread count gives the same checked result.
// RUN: versa-run %s --random --check -O0 | FileCheck %s
// RUN: versa-run %s --random --check -O1 | FileCheck %s
// RUN: versa-run %s --random --check --O 2 | FileCheck %s
// RUN: versa-run %s --random --check --opt-level 3 --threads 2 | FileCheck %s
// RUN: env VERSA_NUM_THREADS=1 versa-run %s --random --check | FileCheck %s
// RUN: not versa-run %s --random -O4 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: result0: float32[67, 45]
// CHECK: check result0: OK
// BAD: error: argument -O/--O/--opt-level: invalid choice: 4
func.func @linear_relu(%x: tensor<67x33xf32>, %w: tensor<33x45xf32>, %b: tensor<45xf32>) -> tensor<67x45xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<67x33xf32>, tensor<33x45xf32>) -> tensor<67x45xf32>
  %1 = "versa.add"(%0, %b) : (tensor<67x45xf32>, tensor<45xf32>) -> tensor<67x45xf32>
  %2 = "versa.relu"(%1) : (tensor<67x45xf32>) -> tensor<67x45xf32>
  return %2 : tensor<67x45xf32>
}
