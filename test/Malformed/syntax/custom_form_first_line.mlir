// a bare versa op in custom form at the top
%0 = versa.relu %a : tensor<4xf32>
