// RUN: flash-opt %s --flash-plan="sm=90 wgmma=true uniform-blocks=true" --flash-tile --flash-online-softmax --flash-assign-layouts | FileCheck %s

// flash-assign-layouts on flash-tile's uniform blocks (UniformBlocks.h): the
// document ids of the program's rows and of each KV block's keys are 1-D
// tiles that no MMA fixes, #flash.frag<spread> (element e in register e / 32
// of lane e % 32, every warp the same), their min/max/and reductions 0-d
// #flash.frag<uniform>; the scf.if's over the block's update carry the
// accumulator tiles in their own layouts. The scan of the program's keys
// before the KV loops carries #flash.frag<cta> tiles (each key held by one
// thread of the program). The ops carry the tiles flash-plan="sm=90
// wgmma=true" gives them without uniform-blocks (64 x 64, 4 warps), as
// Conversion/FlashToGPU/uniform-blocks.mlir's input does; flash-plan keeps
// them and writes uniform_blocks = true into the config.

!F = memref<?x?x?x64xbf16>
// CHECK-LABEL: func.func @docmask
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64xi32, #flash.frag<spread>>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64xi32, #flash.frag<spread>>) outs(%{{.*}} : tensor<i32, #flash.frag<uniform>>)
// CHECK: tensor.extract %{{.*}}[] : tensor<i32, #flash.frag<uniform>>
// The scan of the program's keys (UniformBlocks.h): 3072 keys a chunk,
// each held by one of the program's threads (#flash.frag<cta>).
// CHECK: scf.for {{.*}} step %c3072 iter_args({{.*}}) -> (tensor<3072xindex, #flash.frag<cta>>, tensor<3072xindex, #flash.frag<cta>>, tensor<3072xindex, #flash.frag<cta>>)
// CHECK: outs(%{{.*}} : tensor<3072xi1, #flash.frag<cta>>)
// CHECK: ins(%{{.*}} : tensor<3072xindex, #flash.frag<cta>>) outs(%{{.*}} : tensor<index, #flash.frag<uniform>>)
// CHECK: flash.kv_loop
// CHECK-NOT: scf.if

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

// The conjunct beside a key padding test: each KV block of the scanned
// interval is decided by two uniform tests, and the update is an scf.if.
// CHECK-LABEL: func.func @docmask_pad
// CHECK: scf.for {{.*}} step %c3072 {{.*}} -> (tensor<3072xindex, #flash.frag<cta>>
// CHECK: flash.kv_loop
// CHECK: ins(%{{.*}} : tensor<64xi32, #flash.frag<spread>>) outs(%{{.*}} : tensor<i1, #flash.frag<uniform>>)
// CHECK: tensor.extract %{{.*}}[] : tensor<i1, #flash.frag<uniform>>
// CHECK: ins(%{{.*}} : tensor<64xi32, #flash.frag<spread>>) outs(%{{.*}} : tensor<i1, #flash.frag<uniform>>)
// CHECK: %[[EMPTY:.*]] = tensor.extract %{{.*}}[] : tensor<i1, #flash.frag<uniform>>
// CHECK: scf.if %[[EMPTY]] -> (tensor<64x64xf32, #flash.frag<acc, wgmma>>, tensor<64xf32, #flash.frag<row>>, tensor<64xf32, #flash.frag<row_partial>>)
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf32, #flash.frag<acc, wgmma>>
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32, #flash.frag<acc, wgmma>>, tensor<64xf32, #flash.frag<row>>, tensor<64xf32, #flash.frag<row_partial>>)
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
