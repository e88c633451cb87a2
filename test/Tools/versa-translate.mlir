// versa-translate: ahead-of-time compilation (LLVM IR, assembly, objects, shared libraries, C headers).
// RUN: versa-translate %s --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// RUN: versa-translate %s -O1 --emit-obj -o %t.o --header %t.h && FileCheck %s --check-prefix=HEADER < %t.h
// RUN: versa-translate %s --target aarch64-sve --emit-asm -o - | FileCheck %s --check-prefix=ASM
// RUN: versa-translate --list-targets | FileCheck %s --check-prefix=TARGETS
// RUN: not versa-translate %s --target nope --emit-obj -o %t.o 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: sed -e 's/versa.exp/versa.nope/' %s | not versa-translate - --emit-obj -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not versa-translate %s --emit-shared -o %s 2>&1 | FileCheck %s --check-prefix=OVERWRITE

// Only the C interface is exported: the function itself becomes internal.
// LLVM: define internal void @scale_rows(
// LLVM: define void @_mlir_ciface_scale_rows(ptr %0, ptr %1, ptr %2)

// HEADER:      /* The C interface of 'scale_rows', compiled ahead of time by versa-translate from versa-translate.mlir
// HEADER-NEXT:  * (target x86-64, -O1); generated, do not edit.
// HEADER-NEXT:  *
// HEADER-NEXT:  * scale_rows(arg0: f32[4x8], arg1: f32[4x1])
// HEADER-NEXT:  *   -> result0: f32[4x8]
// HEADER:      #ifndef VERSA_SCALE_ROWS_H
// HEADER:      #include <stdint.h>
// HEADER:      extern "C" {
// HEADER:      typedef struct versa_memref_2d_f32 {
// HEADER-NEXT:   float *allocated;
// HEADER-NEXT:   float *aligned;
// HEADER-NEXT:   int64_t offset;
// HEADER-NEXT:   int64_t sizes[2];
// HEADER-NEXT:   int64_t strides[2];
// HEADER-NEXT: } versa_memref_2d_f32;
// HEADER:      #define SCALE_ROWS_NUM_INPUTS 2
// HEADER-NEXT: #define SCALE_ROWS_NUM_OUTPUTS 1
// HEADER-NEXT: #define SCALE_ROWS_ARG0_RANK 2
// HEADER-NEXT: #define SCALE_ROWS_ARG0_SHAPE {4, 8}
// HEADER-NEXT: #define SCALE_ROWS_ARG0_SIZE 32 /* elements */
// HEADER:      #define SCALE_ROWS_BUFFER_BYTES {128, 16, 128} /* inputs, then outputs */
// HEADER:      void _mlir_ciface_scale_rows(
// HEADER-NEXT:     versa_memref_2d_f32 *arg0,
// HEADER-NEXT:     versa_memref_2d_f32 *arg1,
// HEADER-NEXT:     versa_memref_2d_f32 *result0);
// HEADER:      static inline void scale_rows_run(const float *arg0, const float *arg1, float *result0) {
// HEADER-NEXT:   versa_memref_2d_f32 d_arg0 = {(float *)arg0, (float *)arg0, 0, {4, 8}, {8, 1}};
// HEADER:        _mlir_ciface_scale_rows(&d_arg0, &d_arg1, &d_result0);
// HEADER:      static inline void scale_rows_run_packed(void *const *buffers) {
// HEADER:      #endif /* VERSA_SCALE_ROWS_H */

// ASM: _mlir_ciface_scale_rows:

// TARGETS: aarch64-sve {{.*}}scalable

// UNKNOWN: versa-translate: error: unknown target 'nope' (known: x86-64, x86-64-v3, x86-64-v4, aarch64-neon, aarch64-sve,

// BAD: <stdin>:[[# @LINE + 4]]:{{[0-9]+}}: error: {{.*}}versa.nope

// OVERWRITE: versa-translate: error: refusing to overwrite the input file
func.func @scale_rows(%x: tensor<4x8xf32>, %s: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %0 = "versa.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "versa.mul"(%0, %s) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
