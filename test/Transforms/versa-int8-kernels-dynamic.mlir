// RUN: versa-opt %s --convert-versa-to-linalg --canonicalize --cse --versa-int8-kernels="target=x86-64-v4" \
// RUN:   | FileCheck %s --check-prefix=PACKED
// RUN: versa-opt %s --convert-versa-to-linalg --canonicalize --cse --versa-int8-kernels="target=x86-64-v4" \
// RUN:   --versa-static-tiles --versa-int8-kernels="target=x86-64-v4" | FileCheck %s --check-prefix=V4
// RUN: versa-opt %s --convert-versa-to-linalg --canonicalize --cse --versa-int8-kernels="target=x86-64-v3" \
// RUN:   --versa-static-tiles --versa-int8-kernels="target=x86-64-v3" | FileCheck %s --check-prefix=V3

// A qconv2d with constant filters over a dynamic batch, H and W: the first run packs its filters
// for the target's kernel ([P, KH, KW, C/G, NR*G]: v4's vpmaddwd zmm, one panel of 32 filters
// (F = 20 padded) in i16 pairs; v3's ymm, three panels of 8: 24, not two of 16) and leaves a generic on them, marked
// as a window op, that versa-static-tiles cuts as a named conv (one image, 8 rows x 32 columns
// reading a 10x34 input window); the second run makes each static tile the kernel a static conv
// of that shape gets (the zero points' column term computed in it), on the packed filters that
// the tile function takes as an argument: packed once, a constant of the entry.
// PACKED-LABEL: func.func @qconv_dynamic(
//   PACKED-NOT:   linalg.conv_2d_nhwc_hwcf
//       PACKED:   linalg.generic {{.*}} ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<?x?x?x4xi8>, tensor<1x3x3x2x64xi16>, tensor<32xi32>) outs(%{{.+}} : tensor<?x?x?x20xi32>)
//       PACKED:   versa.int8_packed, versa.window = {dilations = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, layout = "NHWC", strides = array<i64: 1, 1>}

//  V4-DAG: func.func private @versa_int8_dot_{{[0-9]+}}(%{{.+}}: tensor<1x10x34x4xi8>, %{{.+}}: tensor<1x3x3x2x64xi16>, %{{.+}}: tensor<32xi32>, %{{.+}}: tensor<20xi32>) -> tensor<1x8x32x32xi32>
//  V4-DAG: func.call @llvm.x86.avx512.pmaddw.d.512(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// V4-LABEL: func.func private @qconv_dynamic__group0__tile1(
//  V4-SAME:   %[[WP:[^:]+]]: tensor<1x3x3x2x64xi16>
//       V4:   %[[X:.+]] = tensor.extract_slice %{{.+}} [1, 10, 34, 4] [1, 1, 1, 1] : tensor<?x?x?x4xi8> to tensor<1x10x34x4xi8>
//       V4:   call @versa_int8_dot_{{[0-9]+}}(%[[X]], %[[WP]],
//   V4-NOT: versa.int8_packed
// V4-LABEL: func.func @qconv_dynamic(
//       V4:   arith.constant dense<{{.+}}> : tensor<1x3x3x2x64xi16>
//       V4:   call @qconv_dynamic__group0(

//  V3-DAG: func.func private @versa_int8_dot_{{[0-9]+}}(%{{.+}}: tensor<1x10x34x4xi8>, %{{.+}}: tensor<3x3x3x2x16xi16>
//  V3-DAG: func.call @llvm.x86.avx2.pmadd.wd(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
//   V3-NOT: versa.int8_packed
func.func @qconv_dynamic(%x: tensor<?x?x?x4xi8>) -> tensor<?x?x?x20xi32> {
  %w = "versa.constant"() {value = dense<[[[[-127, -90, -53, -16, 21, 58, 95, -123, -86, -49, -12, 25, 62, 99, -119, -82, -45, -8, 29, 66], [103, -115, -78, -41, -4, 33, 70, 107, -111, -74, -37, 0, 37, 74, 111, -107, -70, -33, 4, 41], [78, 115, -103, -66, -29, 8, 45, 82, 119, -99, -62, -25, 12, 49, 86, 123, -95, -58, -21, 16], [53, 90, 127, -91, -54, -17, 20, 57, 94, -124, -87, -50, -13, 24, 61, 98, -120, -83, -46, -9]], [[28, 65, 102, -116, -79, -42, -5, 32, 69, 106, -112, -75, -38, -1, 36, 73, 110, -108, -71, -34], [3, 40, 77, 114, -104, -67, -30, 7, 44, 81, 118, -100, -63, -26, 11, 48, 85, 122, -96, -59], [-22, 15, 52, 89, 126, -92, -55, -18, 19, 56, 93, -125, -88, -51, -14, 23, 60, 97, -121, -84], [-47, -10, 27, 64, 101, -117, -80, -43, -6, 31, 68, 105, -113, -76, -39, -2, 35, 72, 109, -109]], [[-72, -35, 2, 39, 76, 113, -105, -68, -31, 6, 43, 80, 117, -101, -64, -27, 10, 47, 84, 121], [-97, -60, -23, 14, 51, 88, 125, -93, -56, -19, 18, 55, 92, -126, -89, -52, -15, 22, 59, 96], [-122, -85, -48, -11, 26, 63, 100, -118, -81, -44, -7, 30, 67, 104, -114, -77, -40, -3, 34, 71], [108, -110, -73, -36, 1, 38, 75, 112, -106, -69, -32, 5, 42, 79, 116, -102, -65, -28, 9, 46]]], [[[83, 120, -98, -61, -24, 13, 50, 87, 124, -94, -57, -20, 17, 54, 91, -127, -90, -53, -16, 21], [58, 95, -123, -86, -49, -12, 25, 62, 99, -119, -82, -45, -8, 29, 66, 103, -115, -78, -41, -4], [33, 70, 107, -111, -74, -37, 0, 37, 74, 111, -107, -70, -33, 4, 41, 78, 115, -103, -66, -29], [8, 45, 82, 119, -99, -62, -25, 12, 49, 86, 123, -95, -58, -21, 16, 53, 90, 127, -91, -54]], [[-17, 20, 57, 94, -124, -87, -50, -13, 24, 61, 98, -120, -83, -46, -9, 28, 65, 102, -116, -79], [-42, -5, 32, 69, 106, -112, -75, -38, -1, 36, 73, 110, -108, -71, -34, 3, 40, 77, 114, -104], [-67, -30, 7, 44, 81, 118, -100, -63, -26, 11, 48, 85, 122, -96, -59, -22, 15, 52, 89, 126], [-92, -55, -18, 19, 56, 93, -125, -88, -51, -14, 23, 60, 97, -121, -84, -47, -10, 27, 64, 101]], [[-117, -80, -43, -6, 31, 68, 105, -113, -76, -39, -2, 35, 72, 109, -109, -72, -35, 2, 39, 76], [113, -105, -68, -31, 6, 43, 80, 117, -101, -64, -27, 10, 47, 84, 121, -97, -60, -23, 14, 51], [88, 125, -93, -56, -19, 18, 55, 92, -126, -89, -52, -15, 22, 59, 96, -122, -85, -48, -11, 26], [63, 100, -118, -81, -44, -7, 30, 67, 104, -114, -77, -40, -3, 34, 71, 108, -110, -73, -36, 1]]], [[[38, 75, 112, -106, -69, -32, 5, 42, 79, 116, -102, -65, -28, 9, 46, 83, 120, -98, -61, -24], [13, 50, 87, 124, -94, -57, -20, 17, 54, 91, -127, -90, -53, -16, 21, 58, 95, -123, -86, -49], [-12, 25, 62, 99, -119, -82, -45, -8, 29, 66, 103, -115, -78, -41, -4, 33, 70, 107, -111, -74], [-37, 0, 37, 74, 111, -107, -70, -33, 4, 41, 78, 115, -103, -66, -29, 8, 45, 82, 119, -99]], [[-62, -25, 12, 49, 86, 123, -95, -58, -21, 16, 53, 90, 127, -91, -54, -17, 20, 57, 94, -124], [-87, -50, -13, 24, 61, 98, -120, -83, -46, -9, 28, 65, 102, -116, -79, -42, -5, 32, 69, 106], [-112, -75, -38, -1, 36, 73, 110, -108, -71, -34, 3, 40, 77, 114, -104, -67, -30, 7, 44, 81], [118, -100, -63, -26, 11, 48, 85, 122, -96, -59, -22, 15, 52, 89, 126, -92, -55, -18, 19, 56]], [[93, -125, -88, -51, -14, 23, 60, 97, -121, -84, -47, -10, 27, 64, 101, -117, -80, -43, -6, 31], [68, 105, -113, -76, -39, -2, 35, 72, 109, -109, -72, -35, 2, 39, 76, 113, -105, -68, -31, 6], [43, 80, 117, -101, -64, -27, 10, 47, 84, 121, -97, -60, -23, 14, 51, 88, 125, -93, -56, -19], [18, 55, 92, -126, -89, -52, -15, 22, 59, 96, -122, -85, -48, -11, 26, 63, 100, -118, -81, -44]]]]> : tensor<3x3x4x20xi8>} : () -> tensor<3x3x4x20xi8>
  %zx = "versa.constant"() {value = dense<5> : tensor<i8>} : () -> tensor<i8>
  %zw = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %0 = "versa.qconv2d"(%x, %w, %zx, %zw) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<?x?x?x4xi8>, tensor<3x3x4x20xi8>, tensor<i8>, tensor<i8>) -> tensor<?x?x?x20xi32>
  return %0 : tensor<?x?x?x20xi32>
}
