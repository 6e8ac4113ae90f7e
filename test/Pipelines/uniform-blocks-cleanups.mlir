// RUN: flash-opt %s --flash-plan="sm=90 wgmma=true uniform-blocks=true" --flash-tile --flash-online-softmax --flash-assign-layouts --canonicalize --cse --flash-pipeline-kv --canonicalize --cse --flash-pingpong --flash-to-gpu="chip=sm_90a" | FileCheck %s

// flash-tile's uniform blocks through the GPU passes with an embedder's
// canonicalize and cse between them (after flash-assign-layouts and after
// flash-pipeline-kv): flash-to-gpu still finds the layouts and the pipeline
// ops it reads and lowers the same kernel as without the cleanups
// (Conversion/FlashToGPU/uniform-blocks.mlir checks the same lines on the
// plain passes' output).

// flash-tile's uniform blocks (UniformBlocks.h) on the GPU: the document
// ids of the program's rows and of each KV block's keys are 1-D tiles that
// no MMA fixes, #flash.frag<spread> (element e in register e / 32 of lane
// e % 32, every warp the same), their min/max/and reductions 0-d
// #flash.frag<uniform>; the scf.if's over the block's update carry the
// accumulator tiles in their own layouts. flash-to-gpu reduces the i1
// tests with vote.sync (the branch is then uniform across the warpgroup,
// so wgmma may sit inside it) and the i32 min/max with redux.sync. The
// scan of the program's keys before the KV loops carries #flash.frag<cta>
// tiles (each key held by one thread of the program), reduced across the
// warps in shared memory.

!F = memref<?x?x?x64xbf16>
// The program's rows: min and max of the row ids, one redux.sync each (its
// result is a uniform register to ptxas, and so are the KV loops' bounds and
// addresses computed from it).
// CHECK-LABEL: gpu.func @docmask_kernel
// CHECK-NOT: gpu.shuffle
// CHECK: nvvm.redux.sync  min %{{.*}}, %c-1_i32{{.*}} : i32 -> i32
// CHECK-NOT: scf.for
// CHECK: nvvm.redux.sync  max %{{.*}}, %c-1_i32{{.*}} : i32 -> i32
// The scan: 3072 keys over the program's 128 threads, 24 registers for each
// of the three partial results, then per result the warp's redux.sync, one
// slot a warp in shared memory between two barriers, lane l reading warp
// l's slot (lanes past the 4 warps the last one's; a sum's read 0) and a
// second redux.sync over them.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c3072 iter_args({{.*}}) -> ({{(index, ){71}index}})
// CHECK-NOT: gpu.shuffle
// CHECK: nvvm.redux.sync  min
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: arith.minui %{{.*}}, %c3{{.*}} : index
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: nvvm.redux.sync  min
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.redux.sync  max
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: nvvm.redux.sync  max
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.redux.sync  add
// CHECK: gpu.barrier
// CHECK: %[[X:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c4{{.*}} : index
// CHECK: %[[Y:.*]] = arith.select %[[IN]], %[[X]], %c0_i32{{.*}} : i32
// CHECK: nvvm.redux.sync  add %[[Y]]
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.shuffle  xor {{.*}} : i32
// Per KV block: the whole test and the empty test, one vote each, then the
// skip, and inside it the whole-block update (no id compare) and the
// element-wise one.
// The conjunct is the whole mask: FA2's three KV loops, no per-block test.
// CHECK-NOT: nvvm.vote.sync
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.vote.sync
// CHECK-LABEL: gpu.func @docmask_pad_kernel
func.func @docmask(%q: !F, %k: !F, %v: !F, %doc: memref<?x?xi32>, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc : memref<?x?xi32>) outs(%o : !F)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

// The conjunct beside a key padding test: the scan narrows the keys, and
// each KV block of the interval is decided, the whole test and the empty
// test one vote each, then the skip, and inside it the whole-block update
// (no id compare) and the element-wise one.
// CHECK: scf.for %{{.*}} step %c3072
// CHECK: gpu.barrier
// CHECK: nvvm.vote.sync  all
// CHECK: %[[SKIP:.*]] = nvvm.vote.sync  all
// CHECK: scf.if %[[SKIP]] -> (f32
// CHECK-NEXT: scf.yield
// CHECK: scf.if %{{.*}} -> (f32
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: } else {
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
func.func @docmask_pad(%q: !F, %k: !F, %v: !F, %doc: memref<?x?xi32>, %pad: memref<?x?xi32>, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc, %pad : memref<?x?xi32>, memref<?x?xi32>) outs(%o : !F)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>, %p: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        %pj = memref.load %p[%b, %j] : memref<?x?xi32>
        %zero = arith.constant 0 : i32
        %real = arith.cmpi ne, %pj, %zero : i32
        %visible = arith.andi %same, %real : i1
        flash.yield %visible : i1
      }
  return
}
