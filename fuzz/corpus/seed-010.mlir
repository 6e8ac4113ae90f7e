func.func @case3(%q: tensor<2x8x128x64xf16>, %k: memref<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, memref<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}
