func.func @case12(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<3x8x128x64xf16>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<3x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}
