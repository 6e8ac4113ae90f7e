func.func @case4(%q: tensor<2x8x128x64xi8>, %k: tensor<2x8x128x64xi8>, %v: tensor<2x8x128x64xi8>) {
  flash.attention ins(%q, %k, %v : tensor<2x8x128x64xi8>, tensor<2x8x128x64xi8>, tensor<2x8x128x64xi8>) -> tensor<2x8x128x64xi8>
  return
}
