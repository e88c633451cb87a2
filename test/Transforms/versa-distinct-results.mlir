// RUN: versa-opt %s --split-input-file --versa-distinct-results | FileCheck %s

// CHECK-LABEL: func.func @repeated_result
//       CHECK:   %[[E:.+]] = math.exp
//       CHECK:   %[[C:.+]] = bufferization.alloc_tensor() copy(%[[E]]) : tensor<4xf32>
//       CHECK:   return %[[E]], %[[C]]
func.func @repeated_result(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = math.exp %a : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_distinct_results
//   CHECK-NOT:   alloc_tensor
func.func @negative_distinct_results(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = math.exp %a : tensor<4xf32>
  return %0, %a : tensor<4xf32>, tensor<4xf32>
}
