func.func @case23(%q: tensor<1x8x?x64xf16>, %k: tensor<1x8x?x64xf16>, %v: tensor<1x8x?x64xf16>, %a: tensor<4xi32>, %b: tensor<5xi32>) {
  flash.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>) cu_seqlens(%a, %b : tensor<4xi32>, tensor<5xi32>) -> tensor<1x8x?x64xf16>
  return
}
