// RUN: sed -e 's/3072/3040/g' %S/Inputs/scan-errors.mlir \
// RUN:   | not flash-opt --flash-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=CTA
// RUN: sed -e 's/3072/3070/g' -e 's/frag<cta>/frag<spread>/g' %S/Inputs/scan-errors.mlir \
// RUN:   | not flash-opt --flash-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=SUM
// A cta tile reduced in a KV loop: its warps would exchange through the Q
// tile's shared memory while the pipeline's copies are in flight.
// RUN: sed -e 's/tensor<128xi32, #spread>/tensor<128xi32, #cta>/g' %S/Inputs/scan-errors.mlir \
// RUN:   | not flash-opt --flash-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=LATE

// flash-to-gpu's checks of the scan's layouts (UniformBlocks.h emitScan,
// #flash.frag<cta>): a cta tile must hold each element in exactly one
// thread (its length a multiple of the program's threads), a sum reduction
// of a spread tile must see each element once (its length a multiple of
// 32), and a cta tile must be reduced before the K/V pipeline starts (its
// warps meet in the Q tile's shared memory). Each is refused at the op
// rather than miscompiled.

// @docmask (Inputs/scan-errors.mlir) is flash-pipeline-kv's output (uniform-blocks=true) of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc : memref<?x?xi32>) outs(%o : !F)
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
//         %di = memref.load %d[%b, %i] : memref<?x?xi32>
//         %dj = memref.load %d[%b, %j] : memref<?x?xi32>
//         %same = arith.cmpi eq, %di, %dj : i32
//         flash.yield %same : i1
//       }
// CTA: error: 'linalg.generic' op flash-to-gpu: a cta tile of 3040 elements over 128 threads
// SUM: error: 'linalg.generic' op flash-to-gpu: a sum of a spread tile whose length is not a multiple of 32
// LATE: error: 'linalg.generic' op flash-to-gpu: a cta tile must be reduced before the K/V pipeline starts (its scratch is the Q tile's shared memory)

// The document mask beside a padding test on 128-key blocks: each block's
// 128 key ids (a spread tile, reduced per block) made cta by hand.
// @docmask_pad (Inputs/scan-errors.mlir) is flash-pipeline-kv's output (uniform-blocks=true) of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc, %pad : memref<?x?xi32>, memref<?x?xi32>) outs(%o : !F)
//       {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>, %p: memref<?x?xi32>):
//         %di = memref.load %d[%b, %i] : memref<?x?xi32>
//         %dj = memref.load %d[%b, %j] : memref<?x?xi32>
//         %same = arith.cmpi eq, %di, %dj : i32
//         %pj = memref.load %p[%b, %j] : memref<?x?xi32>
//         %zero = arith.constant 0 : i32
//         %real = arith.cmpi ne, %pj, %zero : i32
//         %visible = arith.andi %same, %real : i1
//         flash.yield %visible : i1
//       }
