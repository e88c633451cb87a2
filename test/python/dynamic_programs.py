"""Programs with dynamic dims shared by the tests of dynamic calls (test_dynamic_calls) and of
`versa-run` on them (test_dynamic_run). Each starts on line 1 of its text: versa-run's errors
name locations in it (`f.mlir:1:1`)."""

# An elementwise function of a named dim `batch` in [1, 16], the same in both arguments.
ADD_RELU = """\
func.func @f(%a: tensor<?x64xf32> {versa.dims = ["batch", 64]},
             %b: tensor<?x64xf32> {versa.dims = ["batch", 64]}) -> tensor<?x64xf32>
    attributes {versa.dim_ranges = {batch = array<i64: 1, 16>}} {
  %0 = "versa.add"(%a, %b) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %1 = "versa.relu"(%0) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}
"""
