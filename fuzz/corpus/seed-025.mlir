func.func @case18(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %l: tensor<4xi32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) kv_lens(%l : tensor<4xi32>) -> tensor<2x8x128x64xf16>
  return
}
