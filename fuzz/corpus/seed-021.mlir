func.func @case14(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %s: memref<8xf32>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) alibi(%s : memref<8xf32>) -> tensor<2x8x128x64xf16>
  return
}
