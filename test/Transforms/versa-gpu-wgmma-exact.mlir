// RUN: versa-opt %s "--versa-gpu-wgmma=tf32=false" | FileCheck %s

// Without TF32 (lower-to-nvvm's matmul-precision=highest, the default), f32 matmuls stay exact
// for versa-gpu-matmul's CUDA-core kernel; bf16 ones still take the tensor cores.
// CHECK-LABEL: func.func @f32
//       CHECK:   linalg.matmul
// CHECK-LABEL: func.func @bf16
//   CHECK-NOT:   linalg.matmul
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0
func.func @f32(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %c: memref<128x128xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x128xf32>) outs(%c : memref<128x128xf32>)
  return
}
func.func @bf16(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
  return
}
