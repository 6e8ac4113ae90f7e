func.func @attn(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>,
                %v: tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32> {
  %o = flash.attention ins(%q, %k, %v : tensor<?x?x?x64xf32>,
                           tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>)
      -> tensor<?x?x?x64xf32>
  return %o : tensor<?x?x?x64xf32>
}
