// RUN: versa-import %s | FileCheck %s
// Trigonometry, rounding and sign are one versa op each (rounding an integer tensor is the
// tensor itself); rounding divisions are built on versa.floor and versa.trunc.

// CHECK-LABEL: func.func @unary
//  CHECK-SAME:   (%[[X:.+]]: tensor<8xf32>, %[[I:.+]]: tensor<8xi64>)
//       CHECK:   %[[SIN:.+]] = "versa.sin"(%[[X]]) : (tensor<8xf32>) -> tensor<8xf32>
//       CHECK:   %[[ROUND:.+]] = "versa.round"(%[[SIN]]) : (tensor<8xf32>) -> tensor<8xf32>
//   CHECK-NOT:   "versa.floor"
//       CHECK:   %[[SIGN:.+]] = "versa.sign"(%[[I]]) : (tensor<8xi64>) -> tensor<8xi64>
//       CHECK:   return %[[ROUND]], %[[SIGN]]
func.func @unary(%x: !torch.vtensor<[8],f32>, %i: !torch.vtensor<[8],si64>) -> (!torch.vtensor<[8],f32>, !torch.vtensor<[8],si64>) {
  %0 = torch.aten.sin %x : !torch.vtensor<[8],f32> -> !torch.vtensor<[8],f32>
  %1 = torch.aten.round %0 : !torch.vtensor<[8],f32> -> !torch.vtensor<[8],f32>
  %2 = torch.aten.floor %i : !torch.vtensor<[8],si64> -> !torch.vtensor<[8],si64>
  %3 = torch.aten.sign %2 : !torch.vtensor<[8],si64> -> !torch.vtensor<[8],si64>
  return %1, %3 : !torch.vtensor<[8],f32>, !torch.vtensor<[8],si64>
}

// remainder: q = floor(a / b), then a - q b exactly (Dekker's product) and a correction step.
// CHECK-LABEL: func.func @remainder
//  CHECK-SAME:   (%[[A:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[Q:.+]] = "versa.div"(%[[A]], %[[B]])
//       CHECK:   "versa.floor"(%[[Q]])
//       CHECK:   "versa.select"
//       CHECK:   return
func.func @remainder(%a: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32> {
  %0 = torch.aten.remainder.Tensor %a, %b : !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32> -> !torch.vtensor<[8],f32>
  return %0 : !torch.vtensor<[8],f32>
}

// div with rounding_mode "trunc": trunc(a / b).
// CHECK-LABEL: func.func @div_trunc
//  CHECK-SAME:   (%[[A:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[Q:.+]] = "versa.div"(%[[A]], %[[B]])
//       CHECK:   %[[T:.+]] = "versa.trunc"(%[[Q]])
//       CHECK:   return %[[T]]
func.func @div_trunc(%a: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32> {
  %str = torch.constant.str "trunc"
  %0 = torch.aten.div.Tensor_mode %a, %b, %str : !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.str -> !torch.vtensor<[8],f32>
  return %0 : !torch.vtensor<[8],f32>
}
