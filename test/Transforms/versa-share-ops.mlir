// RUN: versa-opt %s --split-input-file --versa-share-ops | FileCheck %s

// Two layers' scales, equal but for their weights (constants of more than 16 elements, which
// `sharing.py` compares by value): one private function (noinline for LLVM, internal), the
// weights its arguments, a call per layer; it goes before its caller (the module's last function
// stays its entry). The op without a twin (the exp) stays where it was.
//       CHECK: func.func private @__versa_op_0(%{{.+}}: tensor<4x32xf32>, %{{.+}}: tensor<32xf32>) -> tensor<4x32xf32>
//  CHECK-SAME:   attributes {llvm.linkage = #llvm.linkage<internal>, llvm.no_inline}
//       CHECK:   tensor.empty() : tensor<4x32xf32>
//       CHECK:   linalg.generic
//       CHECK:     arith.mulf
//   CHECK-NOT: func.func private
// CHECK-LABEL: func.func @layers
//       CHECK:   call @__versa_op_0(%arg0, %cst{{.*}}) :
//       CHECK:   %[[E:.+]] = linalg.generic
//       CHECK:     math.exp
//       CHECK:   call @__versa_op_0(%[[E]], %cst{{.*}}) :
//   CHECK-NOT:   linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layers(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %w0 = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0]> : tensor<32xf32>
  %w1 = arith.constant dense<[32.0, 31.0, 30.0, 29.0, 28.0, 27.0, 26.0, 25.0, 24.0, 23.0, 22.0, 21.0, 20.0, 19.0, 18.0, 17.0, 16.0, 15.0, 14.0, 13.0, 12.0, 11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]> : tensor<32xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %a = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %w0 : tensor<4x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.mulf %in, %w : f32
    linalg.yield %m : f32
  } -> tensor<4x32xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<4x32xf32>
  %c = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%b, %w1 : tensor<4x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.mulf %in, %w : f32
    linalg.yield %m : f32
  } -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}

// -----

// An op that writes into a tensor it was given (in place, as a divide of a kernel's result
// is): the argument is one the callee may write (`bufferization.writable`), so bufferization
// neither copies it per call nor lets the callee overwrite what the caller still reads.
//       CHECK: func.func private @__versa_op_0(%{{.+}}: tensor<16xf32> {bufferization.writable = true})
// CHECK-LABEL: func.func @in_place
//       CHECK:   %[[A:.+]] = call @__versa_op_0(%arg0) :
//       CHECK:   call @__versa_op_0(%[[A]]) :
#id = affine_map<(d0) -> (d0)>
func.func @in_place(%x: tensor<16xf32>) -> tensor<16xf32> {
  %c = arith.constant 2.0 : f32
  %a = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%x : tensor<16xf32>) {
  ^bb0(%out: f32):
    %d = arith.divf %out, %c : f32
    linalg.yield %d : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%a : tensor<16xf32>) {
  ^bb0(%out: f32):
    %d = arith.divf %out, %c : f32
    linalg.yield %d : f32
  } -> tensor<16xf32>
  return %b : tensor<16xf32>
}

// -----

// A slice read at static offsets (a rotary embedding's half of each head) is taken inside the
// function, whose argument is the whole tensor (a slice passed would be copied per call); the
// insert into a slice of a new tensor is shared as well (a copy, once bufferized).
//       CHECK: func.func private @__versa_op_0(%{{.+}}: tensor<2x8xf32>) -> tensor<2x4xf32>
//       CHECK:   tensor.extract_slice %{{.+}}[0, 4] [2, 4] [1, 1]
//       CHECK:   linalg.copy
//       CHECK: func.func private @[[INSERT:__versa_op_[0-9]+]](%{{.+}}: tensor<2x4xf32>) -> tensor<2x8xf32>
//       CHECK:   tensor.insert_slice
// CHECK-LABEL: func.func @halves
//       CHECK:   %[[L:.+]] = call @__versa_op_0(%arg0) :
//       CHECK:   %[[R:.+]] = call @__versa_op_0(%arg1) :
//       CHECK:   call @[[INSERT]](%[[L]]) :
//       CHECK:   call @[[INSERT]](%[[R]]) :
func.func @halves(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %d = tensor.empty() : tensor<2x8xf32>
  %xs = tensor.extract_slice %x[0, 4] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
  %xh = linalg.copy ins(%xs : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ys = tensor.extract_slice %y[0, 4] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
  %yh = linalg.copy ins(%ys : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %xi = tensor.insert_slice %xh into %d[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %yi = tensor.insert_slice %yh into %d[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  return %xi, %yi : tensor<2x8xf32>, tensor<2x8xf32>
}
