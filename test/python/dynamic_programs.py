"""Versa functions with dynamic dims that several test folders call (the runtime's checks,
versa-run's options)."""

# Two arguments tied by the symbol "batch" (1 to 16 rows); add then relu.
ADD_RELU = """\
func.func @f(%a: tensor<?x64xf32> {versa.dims = ["batch", 64]},
             %b: tensor<?x64xf32> {versa.dims = ["batch", 64]}) -> tensor<?x64xf32>
    attributes {versa.dim_ranges = {batch = array<i64: 1, 16>}} {
  %0 = "versa.add"(%a, %b) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %1 = "versa.relu"(%0) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}
"""
