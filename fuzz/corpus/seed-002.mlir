func.func @mqa_dv(%q: tensor<1x4x17x32xf32>, %k: tensor<1x1x33x32xf32>,
                  %v: tensor<1x1x33x48xf32>) -> tensor<1x4x17x48xf32> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x4x17x32xf32>,
                           tensor<1x1x33x32xf32>, tensor<1x1x33x48xf32>)
       -> tensor<1x4x17x48xf32>
  return %o : tensor<1x4x17x48xf32>
}
