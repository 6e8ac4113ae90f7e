func.func @attention(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                     %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) {
  %o, %lse = flash.attention ins(%q, %k, %v : tensor<?x32x?x128xbf16>,
                                 tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
      {causal} -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
  return %o, %lse : tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
}
