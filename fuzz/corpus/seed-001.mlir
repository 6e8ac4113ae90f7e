func.func @all_attrs_lse(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                         %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) {
  %o, %lse = flash.attention ins(%q, %k, %v : tensor<?x32x?x128xbf16>,
                                 tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
       {causal, scale = 0.125 : f32, window = array<i64: 256, 0>,
        softcap = 30.0 : f32}
       -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
  return %o, %lse : tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
}
