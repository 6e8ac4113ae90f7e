func.func @varlen(%q: tensor<1x8x?x64xf16>, %k: tensor<1x8x?x64xf16>,
                  %v: tensor<1x8x?x64xf16>, %slopes: tensor<3x8xf32>,
                  %cuq: tensor<4xi32>, %cuk: tensor<4xi32>)
    -> (tensor<1x8x?x64xf16>, tensor<1x8x?xf32>) {
  %o, %lse = flash.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>,
                                 tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>)
       alibi(%slopes : tensor<3x8xf32>) cu_seqlens(%cuq, %cuk : tensor<4xi32>, tensor<4xi32>)
       -> tensor<1x8x?x64xf16>, tensor<1x8x?xf32>
  return %o, %lse : tensor<1x8x?x64xf16>, tensor<1x8x?xf32>
}
