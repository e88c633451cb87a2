// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 1 (program 22, generated):
// reference-error in the reference: TypeError: `pad_width` must be of integral type.
// Fixed: the NumPy semantics of versa.pad (dialects/semantics.py, _pad) called
// np.pad(x, []) for a rank-0 input, which NumPy refuses; a 0-d tensor is now returned as is.
func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "versa.pad"(%arg0) {low = array<i64>, high = array<i64>, value = 0.000000000e+00 : f32} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
