// The tool's own flags, mlir-opt style.
// RUN: versa-opt %s --versa-fuse --canonicalize --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT
// RUN: versa-opt %s --versa-fuse --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// RUN: versa-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: versa-opt --emit-irdl | FileCheck %s --check-prefix=IRDL
// RUN: cat %s | versa-opt - --versa-fuse -o %t && FileCheck %s --check-prefix=STDIN < %t

// PRINT: IR Dump After versa-fuse
// PRINT: "versa.fused"
// PRINT: IR Dump After CanonicalizerPass

// TIMING: Execution time report
// TIMING: versa-fuse

// LIST-DAG: --versa-canonicalize
// LIST-DAG: --versa-fuse
// LIST-DAG: --convert-versa-to-linalg
// LIST-DAG: --lower-to-llvm

// IRDL: irdl.dialect @versa
// IRDL: irdl.operation @conv2d

// STDIN-LABEL: func.func @tool_flags
// STDIN: "versa.fused"
func.func @tool_flags(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
