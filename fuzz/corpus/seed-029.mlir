func.func @case22(%q: tensor<2x8x128x64xf16>, %k: tensor<4x8x16x64xf16>, %v: tensor<5x8x16x64xf16>, %t: tensor<2x4xi32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<4x8x16x64xf16>, tensor<5x8x16x64xf16>) block_table(%t : tensor<2x4xi32>) -> tensor<2x8x128x64xf16>
  return
}
