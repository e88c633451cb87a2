// RUN: versa-opt %s --versa-outline-dynamic | FileCheck %s

// Two equal dynamic ops (two layers' activations) call one private function, which fills the
// buffer its caller passes (writable) and returns it; a static op stays inline. An elementwise
// op has a copy marked to run on one thread, called where the result has fewer elements than
// a static compile splits across threads (2^15).
// CHECK-LABEL: func.func private @layers__op0__serial
//  CHECK-SAME:   attributes {versa.one_thread}
// CHECK-LABEL: func.func private @layers__op0
//  CHECK-SAME:   (%[[OUT:.+]]: tensor<?x8xf32> {bufferization.writable = true}, %[[IN:.+]]: tensor<?x8xf32> {bufferization.writable = false}) -> tensor<?x8xf32>
//   CHECK-NOT:   versa.one_thread
//       CHECK:   %[[R:.+]] = linalg.generic {{.*}} ins(%[[IN]] : tensor<?x8xf32>) outs(%[[OUT]] : tensor<?x8xf32>)
//       CHECK:     arith.maximumf
//       CHECK:   return %[[R]]
//   CHECK-NOT: func.func private @layers__op1
// CHECK-LABEL: func.func @layers
//       CHECK:   %[[N:.+]] = arith.muli %{{.+}}, %c8
//       CHECK:   %[[SMALL:.+]] = arith.cmpi ult, %[[N]], %c32768
//       CHECK:   %[[A:.+]] = scf.if %[[SMALL]]
//       CHECK:     call @layers__op0__serial(%{{.+}}, %arg0)
//       CHECK:   } else {
//       CHECK:     call @layers__op0(%{{.+}}, %arg0)
//       CHECK:   scf.if
//       CHECK:     call @layers__op0__serial(%{{.+}}, %[[A]])
//       CHECK:     call @layers__op0(%{{.+}}, %[[A]])
//       CHECK:   linalg.generic {{.*}} ins(%arg1 : tensor<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @layers(%x: tensor<?x8xf32>, %s: tensor<4x8xf32>) -> (tensor<?x8xf32>, tensor<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %e2 = tensor.empty(%n) : tensor<?x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x8xf32>) outs(%e2 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %1, %2 : tensor<?x8xf32>, tensor<4x8xf32>
}
