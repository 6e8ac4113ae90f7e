func.func @case20(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %t: tensor<2xi32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) block_table(%t : tensor<2xi32>) -> tensor<2x8x128x64xf16>
  return
}
