// A verifier error: the query is rank 3.
func.func @f(%q: tensor<8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return %o : tensor<2x8x128x64xf16>
}
