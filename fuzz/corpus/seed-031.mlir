func.func @case24(%q: tensor<1x8x?x64xf16>, %k: tensor<1x8x?x64xf16>, %v: tensor<1x8x?x64xf16>, %a: tensor<4xi32>, %b: tensor<4xi32>, %l: tensor<1xi32>) {
  flash.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>) kv_lens(%l : tensor<1xi32>) cu_seqlens(%a, %b : tensor<4xi32>, tensor<4xi32>) -> tensor<1x8x?x64xf16>
  return
}
