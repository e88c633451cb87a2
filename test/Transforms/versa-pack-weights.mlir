// RUN: versa-opt %s --split-input-file --versa-pack-weights="threads=2 target=x86-64-v3" | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-pack-weights="threads=2 target=x86-64-v4" | FileCheck %s --check-prefix=V4
// RUN: versa-opt %s --split-input-file --versa-pack-weights="threads=2 target=x86-64-v4 dynamic-rows=256" | FileCheck %s --check-prefix=DYN
// RUN: versa-opt %s --split-input-file --versa-pack-weights="threads=2 target=x86-64-v4 dynamic-rows=256" --versa-static-tiles --versa-codegen="threads=2 target=x86-64-v4" | FileCheck %s --check-prefix=TILES
// RUN: versa-opt %s --split-input-file --versa-pack-weights="threads=2 target=x86-64-v3" --versa-codegen="threads=2 target=x86-64-v3" | FileCheck %s --check-prefix=CODEGEN

// A matmul of a constant B (128x96 floats: more than L1) becomes a contraction over
// (panel, m, lane, k) that reads B packed at compile time into panels [N/nr][K][nr], nr the
// register tile's width from the target (AVX2: 2 vectors of 8; AVX-512: 2 of 16); C is the
// [M, N/nr, nr] view of [M, N]. The unpacked constant is gone. After versa-codegen the register
// tile's accumulators (4 rows x one 16-float panel) stay in registers across the k loop, and
// nothing copies B per call (no packing loop, no tensor.pad).
// CHECK-LABEL: func.func @linear
//   CHECK-NOT: tensor<256x96xf32>
//       CHECK: %[[W:.+]] = arith.constant dense<1.000000e+00> : tensor<6x256x16xf32>
//       CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<16x6x16xf32>)
//       CHECK: %[[C:.+]] = linalg.generic {indexing_maps = [#[[A:.+]], #[[B:.+]], #[[O:.+]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}}, %[[W]] : tensor<16x256xf32>, tensor<6x256x16xf32>) outs(%[[Z]] : tensor<16x6x16xf32>) attrs = {versa.packed_b}
//       CHECK: arith.mulf
//       CHECK: arith.addf
//       CHECK: tensor.collapse_shape %[[C]] {{\[\[}}0], [1, 2]] : tensor<16x6x16xf32> into tensor<16x96xf32>
//   CHECK-NOT: linalg.matmul
// V4-LABEL: func.func @linear
//   V4-NOT: tensor<256x96xf32>
//       V4: arith.constant dense<1.000000e+00> : tensor<3x256x32xf32>
//       V4: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x256xf32>, tensor<3x256x32xf32>) outs(%{{.+}} : tensor<16x3x32xf32>) attrs = {versa.packed_b}
// CODEGEN-LABEL: func.func @linear
//   CODEGEN-NOT: tensor.pad
//       CODEGEN: scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<4x1x16xf32>)
//       CODEGEN: vector.fma {{.*}} : vector<16xf32>
//   CODEGEN-NOT: linalg.generic
func.func @linear(%a: tensor<16x256xf32>) -> tensor<16x96xf32> {
  %w = arith.constant dense<1.0> : tensor<256x96xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x96xf32>) -> tensor<16x96xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<16x256xf32>, tensor<256x96xf32>) outs(%f : tensor<16x96xf32>) -> tensor<16x96xf32>
  return %0 : tensor<16x96xf32>
}

// -----

// The epilogue the matmul strategy fuses (bias + erf) is rebuilt on the same [M, N/nr, nr]
// view, over (panel, m, lane) like the contraction, its bias expanded to [N/nr, nr]: still the
// contraction's in-place consumer, so versa-codegen still fuses it.
// CHECK-LABEL: func.func @bias_gelu
//       CHECK: %[[C:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<64x256xf32>, tensor<8x256x16xf32>) outs(%{{.+}} : tensor<64x8x16xf32>) attrs = {versa.packed_b}
//       CHECK: %[[BIAS:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
//       CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[BIAS]] : tensor<8x16xf32>) outs(%[[C]] : tensor<64x8x16xf32>)
//       CHECK: math.erf
//       CHECK: tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2]] : tensor<64x8x16xf32> into tensor<64x128xf32>
// CODEGEN-LABEL: func.func @bias_gelu
//       CODEGEN: scf.forall
//       CODEGEN: scf.for {{.*}} -> (vector<4x1x16xf32>)
//       CODEGEN: math.erf {{.*}} : vector<8xf32>
func.func @bias_gelu(%a: tensor<64x256xf32>, %bias: tensor<128xf32>) -> tensor<64x128xf32> {
  %w = arith.constant dense<0.5> : tensor<256x128xf32>
  %z = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<128xf32>) outs(%0 : tensor<64x128xf32>) {
  ^bb0(%b: f32, %c: f32):
    %s = arith.addf %c, %b : f32
    %g = math.erf %s : f32
    %m = arith.mulf %g, %half : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}

// -----

// N = 100 is no whole number of 16-float panels: the last panel is padded with zero columns
// (7 panels, 112 columns), and C is the first 100 columns of the [16, 112] result.
// CHECK-LABEL: func.func @ragged
//       CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x256xf32>, tensor<7x256x16xf32>) outs(%{{.+}} : tensor<16x7x16xf32>) attrs = {versa.packed_b}
//       CHECK: %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2]] : tensor<16x7x16xf32> into tensor<16x112xf32>
//       CHECK: tensor.extract_slice %[[FLAT]][0, 0] [16, 100] [1, 1] : tensor<16x112xf32> to tensor<16x100xf32>
func.func @ragged(%a: tensor<16x256xf32>) -> tensor<16x100xf32> {
  %w = arith.constant dense<1.0> : tensor<256x100xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x100xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x100xf32>) -> tensor<16x100xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<16x256xf32>, tensor<256x100xf32>) outs(%f : tensor<16x100xf32>) -> tensor<16x100xf32>
  return %0 : tensor<16x100xf32>
}

// -----

// Left as they are: a B that fits in L1 (64x64 floats: 16 KB), and weights that are an argument.
// CHECK-LABEL: func.func @small
//       CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<16x64xf32>, tensor<64x64xf32>)
// CHECK-LABEL: func.func @argument
//       CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<16x256xf32>, tensor<256x96xf32>)
func.func @small(%a: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %w = arith.constant dense<1.0> : tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func @argument(%a: tensor<16x256xf32>, %w: tensor<256x96xf32>) -> tensor<16x96xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x96xf32>) -> tensor<16x96xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<16x256xf32>, tensor<256x96xf32>) outs(%f : tensor<16x96xf32>) -> tensor<16x96xf32>
  return %0 : tensor<16x96xf32>
}

// -----

// M dynamic (a batch times a sequence): left alone before static tiles are cut (the static
// mode), packed by the dynamic mode (dynamic-rows=N, before versa-static-tiles) as the strategy
// of its full tile of N rows would pack it (AVX-512: panels of 32), the bias + relu epilogue
// rebuilt on the [M, N/nr, nr] view with M read at run time. Every tile of the cascade then
// reads the one packed weight: versa-static-tiles cuts the packed contraction in tiles of 256
// rows (a contraction's, not a reduction's 32), each a batch matmul over the panels with its
// epilogue fused (no generic left, no per-call copy of B).
// CHECK-LABEL: func.func @dynamic_rows
//       CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<?x256xf32>, tensor<256x96xf32>)
// DYN-LABEL: func.func @dynamic_rows
//   DYN-NOT: tensor<256x96xf32>
//       DYN: arith.constant dense<1.000000e+00> : tensor<3x256x32xf32>
//       DYN: tensor.empty(%{{.+}}) : tensor<?x3x32xf32>
//       DYN: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<?x256xf32>, tensor<3x256x32xf32>) outs(%{{.+}} : tensor<?x3x32xf32>) attrs = {versa.packed_b}
//       DYN: tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [3, 32] : tensor<96xf32> into tensor<3x32xf32>
//       DYN: arith.maximumf
//       DYN: tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2]] : tensor<?x3x32xf32> into tensor<?x96xf32>
//   DYN-NOT: linalg.matmul
// TILES-LABEL: func.func private @dynamic_rows__group0__tile1
//       TILES: tensor.extract_slice %{{.+}} [256, 256] [1, 1] : tensor<?x256xf32> to tensor<256x256xf32>
//   TILES-NOT: tensor.pad
//       TILES: vector.fma {{.*}} : vector<32xf32>
//       TILES: arith.maximumf {{.*}} : vector<
//   TILES-NOT: linalg.generic
//       TILES: tensor.insert_slice {{.*}} into %{{.+}}[%{{.+}}, 0, 0] [256, 3, 32] [1, 1, 1] : tensor<256x3x32xf32> into tensor<?x3x32xf32>
func.func @dynamic_rows(%a: tensor<?x256xf32>, %bias: tensor<96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x256xf32>
  %w = arith.constant dense<1.0> : tensor<256x96xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<?x256xf32>, tensor<256x96xf32>) outs(%f : tensor<?x96xf32>) -> tensor<?x96xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<?x96xf32>, tensor<96xf32>) outs(%e : tensor<?x96xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<?x96xf32>
  return %1 : tensor<?x96xf32>
}
