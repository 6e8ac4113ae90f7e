func.func @case11(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x100x64xf16>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x100x64xf16>) -> tensor<2x8x128x64xf16>
  return
}
