// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261123 (program 12983, mutant of corpus program 18), reduced by versa-fuzz.
// signal in O0: the worker died with signal SIGFPE: integer division by 0 (relu makes the
// divisor 0) trapped in x86 idiv. a / 0 is now 0 and MIN / -1 is MIN, as in NumPy.
func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<i32>) -> tensor<2xi32> {
  %0 = "versa.relu"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
  %1 = "versa.div"(%arg1, %0) : (tensor<i32>, tensor<2xi32>) -> tensor<2xi32>
  return %1 : tensor<2xi32>
}
