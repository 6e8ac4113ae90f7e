func.func @syntax(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  %o = flash.attention (%q, %k, %v) -> tensor<2x8x128x64xf16>
  return
}
