func.func @case26(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>, %a: tensor<4xi32>) {
  "flash.attention"(%q, %k, %v, %a) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1, 0, 0>}> : (tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<4xi32>) -> tensor<2x8x128x64xf16>
  return
}
