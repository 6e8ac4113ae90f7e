func.func @paged_cache(%q: tensor<4x32x1x128xbf16>, %k: tensor<?x8x16x128xbf16>,
                       %v: tensor<?x8x16x128xbf16>, %slopes: tensor<32xf32>,
                       %lens: tensor<4xi32>, %table: tensor<4x?xi32>)
    -> tensor<4x32x1x128xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<4x32x1x128xbf16>,
                           tensor<?x8x16x128xbf16>, tensor<?x8x16x128xbf16>)
       alibi(%slopes : tensor<32xf32>) kv_lens(%lens : tensor<4xi32>)
       block_table(%table : tensor<4x?xi32>) {causal}
       -> tensor<4x32x1x128xbf16>
  return %o : tensor<4x32x1x128xbf16>
}
