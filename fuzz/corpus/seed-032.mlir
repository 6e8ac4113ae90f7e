func.func @case25(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %a: tensor<4xi32>, %b: tensor<4xi32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) cu_seqlens(%a, %b : tensor<4xi32>, tensor<4xi32>) -> tensor<2x8x128x64xf16>
  return
}
