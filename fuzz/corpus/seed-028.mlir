func.func @case21(%q: tensor<2x8x128x64xf16>, %k: tensor<?x8x16x64xf16>, %v: tensor<?x8x16x64xf16>, %t: tensor<3x4xi32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<?x8x16x64xf16>, tensor<?x8x16x64xf16>) block_table(%t : tensor<3x4xi32>) -> tensor<2x8x128x64xf16>
  return
}
