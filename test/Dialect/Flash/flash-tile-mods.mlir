// RUN: flash-opt %s --flash-tile | FileCheck %s --check-prefix=TILE
// RUN: flash-opt %s --flash-tile --flash-online-softmax | FileCheck %s --check-prefix=SOFTMAX

// score_mod / mask_mod with captures and ALiBi through the tile level.
// flash-tile gives every flash.tile_update (masked or `main`) the regions:
// ALiBi expanded in front of the user's score_mod, b and h from the grid,
// captures from above; scores in logit units (`logits`) on the updates and
// the finalize. flash-online-softmax inlines them into one element-wise
// generic after the logit scale and before the causal mask, at the clamped
// positions i = min(row + r, Sq - 1), j = min(col + c, Sk - 1) (j only on
// masked blocks: the others lie inside the keys).

// TILE-LABEL: func.func @mods
// TILE-SAME: %[[SLOPES:[^:]+]]: memref<4xf32>, %[[DOC:[^:]+]]: memref<?x?xi32>, %[[BIAS:[^:]+]]: memref<4xf32>
// TILE: flash.grid (%{{.+}}, %[[H:.+]], %[[B:.+]]) in
// TILE: flash.tile_update {{.*}} bounds(%[[SQ:.+]], %[[SK:.+]]) {causal, logits, masked, scale = {{.*}}} : {{.*}} score_mod {
// TILE-NEXT: ^bb0(%[[S:.+]]: f32, %[[I:.+]]: index, %[[J:.+]]: index):
// TILE-NEXT: %[[SLOPE:.+]] = memref.load %[[SLOPES]][%[[H]]] : memref<4xf32>
// TILE-NEXT: %[[OFF:.+]] = arith.subi %[[SK]], %[[SQ]] : index
// TILE-NEXT: %[[DIAG:.+]] = arith.addi %[[I]], %[[OFF]] : index
// TILE-NEXT: %[[D:.+]] = arith.subi %[[DIAG]], %[[J]] : index
// TILE: %[[ABS:.+]] = arith.maxsi %[[D]], %{{.+}} : index
// TILE: %[[DF:.+]] = arith.sitofp %{{.+}} : i64 to f32
// TILE-NEXT: %[[PEN:.+]] = arith.mulf %[[SLOPE]], %[[DF]] : f32
// TILE-NEXT: %[[AL:.+]] = arith.subf %[[S]], %[[PEN]] : f32
// TILE-NEXT: %[[W:.+]] = memref.load %[[BIAS]][%[[H]]] : memref<4xf32>
// TILE-NEXT: %[[R:.+]] = arith.addf %[[AL]], %[[W]] : f32
// TILE-NEXT: flash.yield %[[R]] : f32
// TILE-NEXT: } mask_mod {
// TILE-NEXT: ^bb0(%[[MI:.+]]: index, %[[MJ:.+]]: index):
// TILE-NEXT: memref.load %[[DOC]][%[[B]], %[[MI]]] : memref<?x?xi32>
// TILE-NEXT: memref.load %[[DOC]][%[[B]], %[[MJ]]] : memref<?x?xi32>
// TILE-NEXT: arith.cmpi eq
// TILE-NEXT: flash.yield %{{.+}} : i1
// TILE: flash.kv_loop main
// TILE: flash.tile_update {{.*}} {causal, logits, scale = {{.*}}} : {{.*}} score_mod {
// TILE: } mask_mod {
// TILE: flash.tile_finalize {{.*}} {logits, scale = {{.*}}}

// SOFTMAX-LABEL: func.func @mods
// SOFTMAX-SAME: %[[SLOPES:[^:]+]]: memref<4xf32>, %[[DOC:[^:]+]]: memref<?x?xi32>, %[[BIAS:[^:]+]]: memref<4xf32>
// SOFTMAX: flash.grid (%{{.+}}, %[[H:.+]], %[[B:.+]]) in
// SOFTMAX: flash.kv_loop masked_right
// SOFTMAX: %[[ROW0:.+]] = arith.muli
// The logit scale, then the mods generic.
// SOFTMAX: linalg.matmul
// SOFTMAX: linalg.generic
// SOFTMAX-NEXT: ^bb0(%[[X:.+]]: f32):
// SOFTMAX-NEXT: arith.constant 0.176776692 : f32
// SOFTMAX-NEXT: arith.mulf %[[X]]
// SOFTMAX: %[[LASTROW:.+]] = arith.subi %{{.+}}, %c1
// SOFTMAX: %[[LASTCOL:.+]] = arith.subi %{{.+}}, %c1
// SOFTMAX: linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<16x16xf32>)
// SOFTMAX-NEXT: ^bb0(%[[SC:.+]]: f32):
// SOFTMAX-NEXT: %[[R:.+]] = linalg.index 0 : index
// SOFTMAX-NEXT: %[[IR:.+]] = arith.addi %{{.+}}, %[[R]] : index
// SOFTMAX-NEXT: %[[I:.+]] = arith.minsi %[[IR]], %[[LASTROW]] : index
// SOFTMAX-NEXT: %[[C:.+]] = linalg.index 1 : index
// SOFTMAX-NEXT: %[[JC:.+]] = arith.addi %{{.+}}, %[[C]] : index
// SOFTMAX-NEXT: %[[J:.+]] = arith.minsi %[[JC]], %[[LASTCOL]] : index
// SOFTMAX-NEXT: memref.load %[[SLOPES]][%[[H]]] : memref<4xf32>
// SOFTMAX: arith.subf %[[SC]]
// SOFTMAX: memref.load %[[BIAS]][%[[H]]] : memref<4xf32>
// SOFTMAX: %[[SM:.+]] = arith.addf
// SOFTMAX-NEXT: memref.load %[[DOC]][%[[B]], %[[I]]] : memref<?x?xi32>
// SOFTMAX-NEXT: memref.load %[[DOC]][%[[B]], %[[J]]] : memref<?x?xi32>
// SOFTMAX-NEXT: %[[SAME:.+]] = arith.cmpi eq
// SOFTMAX-NEXT: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// SOFTMAX-NEXT: %[[SEL:.+]] = arith.select %[[SAME]], %[[SM]], %[[NINF]] : f32
// SOFTMAX-NEXT: linalg.yield %[[SEL]] : f32
// Then the causal mask of a masked block.
// SOFTMAX: linalg.generic
// SOFTMAX: arith.select
// The `main` loop keeps the mask_mod select (no causal mask generic); its
// blocks lie inside the keys, so j is col + c unclamped (i still is).
// SOFTMAX: flash.kv_loop main
// SOFTMAX: linalg.index 0
// SOFTMAX-NEXT: arith.addi
// SOFTMAX-NEXT: %[[MI:.+]] = arith.minsi
// SOFTMAX-NEXT: linalg.index 1
// SOFTMAX-NEXT: %[[MJ:.+]] = arith.addi
// SOFTMAX-NOT: arith.minsi
// SOFTMAX: memref.load %[[DOC]][%[[B]], %[[MI]]]
// SOFTMAX-NEXT: memref.load %[[DOC]][%[[B]], %[[MJ]]]
// SOFTMAX: arith.select
// SOFTMAX-NOT: flash.tile_update
// SOFTMAX: return

func.func @mods(%q: memref<?x4x?x32xf32>, %k: memref<?x2x?x32xf32>, %v: memref<?x2x?x32xf32>, %slopes: memref<4xf32>, %doc: memref<?x?xi32>, %bias: memref<4xf32>, %o: memref<?x4x?x32xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x4x?x32xf32>, memref<?x2x?x32xf32>, memref<?x2x?x32xf32>)
      alibi(%slopes : memref<4xf32>)
      captures(%doc, %bias : memref<?x?xi32>, memref<4xf32>)
      outs(%o : memref<?x4x?x32xf32>)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>}
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>, %t: memref<4xf32>):
        %w = memref.load %t[%h] : memref<4xf32>
        %r = arith.addf %s, %w : f32
        flash.yield %r : f32
      }
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>, %t: memref<4xf32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

// The tensor form: captures are bufferized with the other operands
// (to_buffer), and tensor.extract on them becomes memref.load.
// TILE-LABEL: func.func @tensor_capture
// TILE: %[[PB:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<4xi32> to memref<4xi32>
// TILE: flash.tile_update {{.*}} mask_mod {
// TILE-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index):
// TILE-NEXT: memref.load %[[PB]][%{{.+}}] : memref<4xi32>
func.func @tensor_capture(%q: tensor<1x4x16x32xf32>, %prefix: tensor<4xi32>)
    -> tensor<1x4x16x32xf32> {
  %o = flash.attention ins(%q, %q, %q : tensor<1x4x16x32xf32>,
                           tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32>)
      captures(%prefix : tensor<4xi32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>}
      -> tensor<1x4x16x32xf32>
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %p: tensor<4xi32>):
        %n = tensor.extract %p[%h] : tensor<4xi32>
        %ni = arith.index_cast %n : i32 to index
        %in = arith.cmpi slt, %j, %ni : index
        flash.yield %in : i1
      }
  return %o : tensor<1x4x16x32xf32>
}
