// RUN: versa-opt %s --split-input-file --pass-pipeline='builtin.module(versa-byte-bools)' | FileCheck %s

// Boolean vectors in memory are a byte per element: a load of <16 x i1> would read 16 packed
// bits (2 bytes). Each access becomes one of <16 x i8>, truncated after a load, zero-extended
// before a store; masks (registers) and other element types are left alone.
// CHECK-LABEL: llvm.func @masked
//  CHECK-SAME:   (%[[P:.+]]: !llvm.ptr, %[[M:.+]]: vector<16xi1>, %[[PASS:.+]]: vector<16xi1>, %[[Q:.+]]: !llvm.ptr)
//       CHECK:   %[[PASS8:.+]] = llvm.zext %[[PASS]] : vector<16xi1> to vector<16xi8>
//       CHECK:   %[[B:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PASS8]] {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi8>) -> vector<16xi8>
//       CHECK:   %[[V:.+]] = llvm.trunc %[[B]] : vector<16xi8> to vector<16xi1>
//       CHECK:   %[[N:.+]] = llvm.xor %[[V]], %[[M]] : vector<16xi1>
//       CHECK:   %[[S:.+]] = llvm.zext %[[N]] : vector<16xi1> to vector<16xi8>
//       CHECK:   llvm.intr.masked.store %[[S]], %[[Q]], %[[M]] {alignment = 1 : i32} : vector<16xi8>, vector<16xi1> into !llvm.ptr
//       CHECK:   %[[F:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %{{.+}} {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
//       CHECK:   llvm.return
llvm.func @masked(%p: !llvm.ptr, %m: vector<16xi1>, %pass: vector<16xi1>, %q: !llvm.ptr) {
  %v = llvm.intr.masked.load %p, %m, %pass {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi1>) -> vector<16xi1>
  %n = llvm.xor %v, %m : vector<16xi1>
  llvm.intr.masked.store %n, %q, %m {alignment = 1 : i32} : vector<16xi1>, vector<16xi1> into !llvm.ptr
  %z = llvm.mlir.zero : vector<16xf32>
  %f = llvm.intr.masked.load %p, %m, %z {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
  llvm.return
}

// -----

// Plain loads and stores, scalable vectors (SVE) too; a scalar i1 is already a byte.
// CHECK-LABEL: llvm.func @plain
//       CHECK:   %[[B:.+]] = llvm.load %{{.+}} {alignment = 1 : i64} : !llvm.ptr -> vector<[4]xi8>
//       CHECK:   %[[V:.+]] = llvm.trunc %[[B]] : vector<[4]xi8> to vector<[4]xi1>
//       CHECK:   %[[S:.+]] = llvm.zext %[[V]] : vector<[4]xi1> to vector<[4]xi8>
//       CHECK:   llvm.store %[[S]], %{{.+}} {alignment = 1 : i64} : vector<[4]xi8>, !llvm.ptr
//       CHECK:   %[[C:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i1
//       CHECK:   llvm.store %[[C]], %{{.+}} : i1, !llvm.ptr
llvm.func @plain(%p: !llvm.ptr, %q: !llvm.ptr) {
  %v = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<[4]xi1>
  llvm.store %v, %q {alignment = 1 : i64} : vector<[4]xi1>, !llvm.ptr
  %c = llvm.load %p : !llvm.ptr -> i1
  llvm.store %c, %q : i1, !llvm.ptr
  llvm.return
}
