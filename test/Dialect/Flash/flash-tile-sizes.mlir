// RUN: flash-opt %s --flash-tile | FileCheck %s

// Hardening (issue #14), class "sizes": flash-tile counts the static KV
// iterations by walking the query blocks; with Sq = 2^40 (2^34 blocks) that
// walk hung. Beyond 2^20 blocks the counts are left out, and a count whose
// product with B * Hq overflows int64 too; the grid itself is unchanged.

// CHECK-LABEL: func.func @huge_seq
// CHECK: flash.grid
// CHECK-NOT: masked_iterations
// CHECK: return
func.func @huge_seq(%q: memref<1x1x1099511627776x64xf16>, %k: memref<1x1x1099511627776x64xf16>, %v: memref<1x1x1099511627776x64xf16>, %o: memref<1x1x1099511627776x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<1x1x1099511627776x64xf16>, memref<1x1x1099511627776x64xf16>, memref<1x1x1099511627776x64xf16>) outs(%o : memref<1x1x1099511627776x64xf16>)
      {causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// Below the bound the counts are still recorded.
// CHECK-LABEL: func.func @counted
// CHECK: flash.grid {{.+}} masked_iterations = 3 : i64, {{.*}}unmasked_iterations = 0 : i64
func.func @counted(%q: memref<1x1x128x64xf16>, %k: memref<1x1x128x64xf16>, %v: memref<1x1x128x64xf16>, %o: memref<1x1x128x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<1x1x128x64xf16>, memref<1x1x128x64xf16>, memref<1x1x128x64xf16>) outs(%o : memref<1x1x128x64xf16>)
      {causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}
