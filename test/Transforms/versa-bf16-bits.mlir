// RUN: versa-opt %s --split-input-file --versa-bf16-bits | FileCheck %s

// bf16 is only moved once lower-to-llvm has emulated its arithmetic: every value becomes the
// i16 of its bits (loads, masked accesses, selects, phis, GEP elements, constants), the
// entry block's arguments through a bitcast, and bitcasts between bf16 and bits disappear.
// CHECK-LABEL: llvm.func @moves
//  CHECK-SAME:   (%[[P:.+]]: !llvm.ptr, %[[M:.+]]: vector<7xi1>, %[[X:.+]]: vector<7xbf16>, %[[BITS:.+]]: vector<7xi16>)
//       CHECK:   %[[XB:.+]] = llvm.bitcast %[[X]] : vector<7xbf16> to vector<7xi16>
//       CHECK:   %[[NANB:.+]] = llvm.mlir.constant(dense<32704> : vector<7xi16>) : vector<7xi16>
//       CHECK:   %[[ROWS:.+]] = llvm.mlir.constant(dense<{{\[\[}}16320, -16384], [0, -128]]> : tensor<2x2xi16>) : !llvm.array<2 x vector<2xi16>>
//       CHECK:   %[[ONE:.+]] = llvm.mlir.constant(16256 : i16) : i16
//       CHECK:   %[[L:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %[[XB]] {alignment = 2 : i32} : (!llvm.ptr, vector<7xi1>, vector<7xi16>) -> vector<7xi16>
//       CHECK:   %[[S:.+]] = llvm.select %[[M]], %[[NANB]], %[[L]] : vector<7xi1>, vector<7xi16>
//       CHECK:   %[[T:.+]] = llvm.select %[[M]], %[[BITS]], %[[S]] : vector<7xi1>, vector<7xi16>
//       CHECK:   %[[Q:.+]] = llvm.getelementptr %[[P]][1] : (!llvm.ptr) -> !llvm.ptr, i16
//       CHECK:   llvm.br ^bb1(%[[T]] : vector<7xi16>)
//       CHECK: ^bb1(%[[PHI:.+]]: vector<7xi16>):
//       CHECK:   llvm.store %[[PHI]], %[[Q]] : vector<7xi16>, !llvm.ptr
//   CHECK-NOT:   bf16
llvm.func @moves(%p: !llvm.ptr, %m: vector<7xi1>, %x: vector<7xbf16>, %bits: vector<7xi16>) {
  %nan = llvm.mlir.constant(dense<0x7FC0> : vector<7xbf16>) : vector<7xbf16>
  %rows = llvm.mlir.constant(dense<[[1.5, -2.0], [0.0, 0xFF80]]> : tensor<2x2xbf16>) : !llvm.array<2 x vector<2xbf16>>
  %one = llvm.mlir.constant(1.0 : bf16) : bf16
  %l = llvm.intr.masked.load %p, %m, %x {alignment = 2 : i32} : (!llvm.ptr, vector<7xi1>, vector<7xbf16>) -> vector<7xbf16>
  %s = llvm.select %m, %nan, %l : vector<7xi1>, vector<7xbf16>
  %b = llvm.bitcast %bits : vector<7xi16> to vector<7xbf16>
  %t = llvm.select %m, %b, %s : vector<7xi1>, vector<7xbf16>
  %q = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, bf16
  llvm.br ^bb1(%t : vector<7xbf16>)
^bb1(%v: vector<7xbf16>):
  llvm.store %v, %q : vector<7xbf16>, !llvm.ptr
  llvm.return
}

// -----

// A function that still computes in bf16 is left alone: retyped, it would add integers.
// CHECK-LABEL: llvm.func @arithmetic
//       CHECK:   llvm.fadd %{{.+}}, %{{.+}} : bf16
//       CHECK:   llvm.store %{{.+}}, %{{.+}} : bf16, !llvm.ptr
llvm.func @arithmetic(%p: !llvm.ptr) {
  %x = llvm.load %p : !llvm.ptr -> bf16
  %y = llvm.fadd %x, %x : bf16
  llvm.store %y, %p : bf16, !llvm.ptr
  llvm.return
}
