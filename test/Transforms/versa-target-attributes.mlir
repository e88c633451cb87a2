// RUN: versa-opt %s --split-input-file --versa-target-attributes=target=x86-64-v3 | FileCheck %s --check-prefix=V3
// RUN: versa-opt %s --split-input-file --versa-target-attributes=target=aarch64-neon | FileCheck %s --check-prefix=NEON
// RUN: not versa-opt %s --versa-target-attributes=target=nvptx-sm90 2>&1 | FileCheck %s --check-prefix=GPU

// Every function with a body names the target's CPU and features; declarations are left alone.

// V3-LABEL: llvm.func @kernel
// V3-SAME: target_cpu = "x86-64-v3"
// V3-SAME: target_features = #llvm.target_features<[{{.*}}"+avx2"{{.*}}"+f16c", "+fma"{{.*}}]>
// V3-NOT: avx512
// V3: llvm.func @expf(f32) -> f32
// V3-NOT: target_cpu
// NEON-LABEL: llvm.func @kernel
// NEON-SAME: target_cpu = "neoverse-n1", target_features = #llvm.target_features<["+neon", "+fp-armv8", "+dotprod"]>
// GPU: error: 'versa-target-attributes' target 'nvptx-sm90' is not a CPU
llvm.func @kernel(%x: f32) -> f32 {
  %0 = llvm.call @expf(%x) : (f32) -> f32
  llvm.return %0 : f32
}
llvm.func @expf(f32) -> f32
