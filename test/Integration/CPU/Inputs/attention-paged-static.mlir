// kv_lens and block_table with static dims that fit only some cases
// (B = 3, 4 pages per sequence of 16 keys).
!t = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!p = memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attn(%q: !t, %k: !p, %v: !p, %lens: memref<3xi32>, %tab: memref<?x4xi32>, %o: !t) {
  flash.attention ins(%q, %k, %v : !t, !p, !p) kv_lens(%lens : memref<3xi32>)
      block_table(%tab : memref<?x4xi32>) outs(%o : !t)
  return
}
