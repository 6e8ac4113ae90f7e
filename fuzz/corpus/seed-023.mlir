func.func @case16(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %s: tensor<1x2x8xf32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) alibi(%s : tensor<1x2x8xf32>) -> tensor<2x8x128x64xf16>
  return
}
