// flash-to-gpu reads the tiles' layouts and decides none: a grid whose
// tiles have no #flash.frag (flash-assign-layouts did not run) is refused,
// and so are layouts it cannot lower (a tile load in registers, an MMA kind
// that is not the config's).
// RUN: not flash-opt %s --flash-tile --flash-online-softmax --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv \
// RUN:   | sed -e 's/tensor<32x32xf16, #flash.frag<smem, mma_sync>>/tensor<32x32xf16, #flash.frag<acc, mma_sync>>/g' \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv \
// RUN:   | sed -e 's/mma_sync>/wgmma>/g' \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=MMA

// MISSING: error: 'flash.tile_load' op flash-to-gpu: a tile without a #flash.frag layout ('tensor<32x32xf16>'); run flash-assign-layouts first
// LOAD: error: 'flash.tile_load' op flash-to-gpu: layout #flash.frag<acc, mma_sync> for a tile load (#flash.frag<smem, ...>)
// MMA: error: 'flash.tile_load' op flash-to-gpu: layout #flash.frag<smem, wgmma> in a grid compiled for mma_sync (its #flash.config)

!T = memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @causal(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>}
  return
}
