module {
  irdl.dialect @versa {
    irdl.operation @add {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @sub {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @mul {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @div {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @max {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @min {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @pow {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @neg {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @abs {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @relu {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @exp {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @log {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @sqrt {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @rsqrt {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @tanh {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @sigmoid {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @erf {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @gelu {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @clamp {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @cast {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @constant {
      %0 = irdl.any
      irdl.attributes {"value" = %0}
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @matmul {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @conv2d {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, filter: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @max_pool2d {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"kernel" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @avg_pool2d {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"kernel" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @reduce_sum {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"axes" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @reduce_max {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"axes" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @reduce_mean {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"axes" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @softmax {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"axis" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @layer_norm {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, gamma: %1, beta: %2)
      %3 = irdl.any
      %4 = irdl.any
      irdl.attributes {"axis" = %3, "epsilon" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @batch_norm {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, scale: %1, bias: %2, mean: %3, variance: %4)
      %5 = irdl.any
      irdl.attributes {"epsilon" = %5}
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(result: %6)
    }
    irdl.operation @transpose {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"perm" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @reshape {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @broadcast_to {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @concat {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(first: %0, rest: variadic %1)
      %2 = irdl.any
      irdl.attributes {"axis" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @slice {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      %2 = irdl.any
      irdl.attributes {"starts" = %1, "limits" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @pad {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      %2 = irdl.any
      irdl.attributes {"low" = %1, "high" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @fused {
      %0 = irdl.base "#builtin.string" 
      irdl.attributes {"kind" = %0}
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(results_: variadic %1)
      %2 = irdl.region
      irdl.regions(body: %2)
    }
    irdl.operation @yield {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(values: variadic %0)
    }
    irdl.operation @gather {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, indices: %1)
      %2 = irdl.any
      irdl.attributes {"axis" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @scatter {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, indices: %1, updates: %2)
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @iota {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(like: optional %0)
      %1 = irdl.any
      irdl.attributes {"axis" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @reduce_argmax {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"axis" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @cumsum {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.attributes {"axis" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @conv_transpose2d {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, filter: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @compare {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.any
      irdl.attributes {"predicate" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @select {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(condition: %0, on_true: %1, on_false: %2)
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @and {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @or {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @not {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @sin {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @cos {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @tan {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @atan {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @log1p {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @expm1 {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @floor {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @ceil {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @round {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @trunc {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @sign {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @quantize {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, scale: %1, zero_point: %2)
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @dequantize {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, scale: %1, zero_point: %2)
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @requantize {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, scale: %1, zero_point: %2)
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @qmatmul {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1, lhs_zero_point: %2, rhs_zero_point: %3)
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @qconv2d {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, filter: %1, input_zero_point: %2, filter_zero_point: %3)
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
  }
}
