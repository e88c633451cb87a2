// RUN: versa-opt %s --split-input-file --versa-readonly-arguments | FileCheck %s

// CHECK-LABEL: func.func @inputs
//  CHECK-SAME:   (%{{.+}}: tensor<4xf32> {bufferization.writable = false}, %{{.+}}: index, %{{.+}}: tensor<2xf32> {bufferization.writable = false, versa.keep})
func.func @inputs(%a: tensor<4xf32>, %i: index, %b: tensor<2xf32> {versa.keep}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func private @negative_declaration(tensor<4xf32>)
func.func private @negative_declaration(tensor<4xf32>)
