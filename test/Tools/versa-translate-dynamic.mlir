// versa-translate with dynamic dims: the header states each argument's dims (a symbol where
// dynamic), the symbols' ranges, and checks a call and sizes its results in C (<name>_shapes).
// RUN: versa-translate %s --emit-obj -o %t.o --header %t.h && FileCheck %s < %t.h
// RUN: sed -e 's/"versa.relu"(%%0)/"tensor.cast"(%%0)/' %s | not versa-translate - --emit-obj -o %t.o --header %t.h 2>&1 | FileCheck %s --check-prefix=NORULE

// CHECK:      * rows_mm(arg0: f32[?x?], arg1: f32[?x8])
// CHECK-NEXT: *   -> result0: f32[?x8]
// CHECK:      *   arg0: [m, k]
// CHECK-NEXT: *   arg1: [k, 8]
// CHECK-NEXT: *   result0: [m, 8]
// CHECK-NEXT: *   1 <= m <= 256, a multiple of 4
// CHECK-NEXT: *   0 <= k
// CHECK:      #include <stddef.h>
// CHECK:      #define ROWS_MM_DYNAMIC_DIMS 1
// CHECK:      #define ROWS_MM_ARG0_DIMS {-1, -1} /* -1: dynamic */
// CHECK:      #define ROWS_MM_ARG1_DIMS {-1, 8} /* -1: dynamic */
// CHECK:      #define ROWS_MM_RESULT0_DIMS {-1, 8} /* -1: dynamic */
// CHECK-NEXT: #define ROWS_MM_DIM_M_MIN 1
// CHECK-NEXT: #define ROWS_MM_DIM_M_MAX 256 /* -1: unbounded */
// CHECK-NEXT: #define ROWS_MM_DIM_M_MULTIPLE_OF 4
// CHECK-NEXT: #define ROWS_MM_DIM_K_MIN 0
// CHECK-NEXT: #define ROWS_MM_DIM_K_MAX -1 /* -1: unbounded */
// CHECK:      static inline const char *rows_mm_shapes(
// CHECK-NEXT:     const int64_t *arg0_sizes,
// CHECK-NEXT:     const int64_t *arg1_sizes,
// CHECK-NEXT:     int64_t *result0_sizes) {
// CHECK-NEXT:   const int64_t dim_m = arg0_sizes[0];
// CHECK-NEXT:   if (dim_m < 1) return "argument 0 dim 0 is below the minimum 1 of 'm'";
// CHECK-NEXT:   if (dim_m > 256) return "argument 0 dim 0 exceeds the maximum 256 of 'm'";
// CHECK-NEXT:   if (dim_m % 4 != 0) return "argument 0 dim 0 is not a multiple of 4 of 'm'";
// CHECK-NEXT:   const int64_t dim_k = arg0_sizes[1];
// CHECK-NEXT:   if (dim_k < 0) return "argument 0 dim 1 is negative of 'k'";
// CHECK-NEXT:   if (arg1_sizes[0] != dim_k) return "argument 1 dim 0: symbol 'k' differs from argument 0 dim 1";
// CHECK-NEXT:   if (arg1_sizes[1] != 8) return "argument 1 dim 1: the function takes 8";
// CHECK:        result0_sizes[0] = dim_m;
// CHECK-NEXT:   result0_sizes[1] = 8;
// CHECK-NEXT:   return NULL;
// CHECK:      static inline const char *rows_mm_run(
// CHECK:        versa_memref_2d_f32 d_arg0 = {(float *)arg0, (float *)arg0, 0, {arg0_sizes[0], arg0_sizes[1]}, {arg0_sizes[1], 1}};
// CHECK:        _mlir_ciface_rows_mm(&d_arg0, &d_arg1, &d_result0);

// NORULE: <stdin>:[[# @LINE + 4]]:{{[0-9]+}}: error: 'tensor.cast' has no shape rule, and result 0 of the function has dynamic dims
func.func @rows_mm(%a: tensor<?x?xf32> {versa.dims = ["m", "k"]}, %b: tensor<?x8xf32> {versa.dims = ["k", 8]})
    -> tensor<?x8xf32> attributes {versa.dim_ranges = {m = array<i64: 1, 256, 4>}} {
  %0 = "versa.matmul"(%a, %b) : (tensor<?x?xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = "versa.relu"(%0) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
