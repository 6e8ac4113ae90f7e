// RUN: flash-opt %s --flash-split-kv --flash-tile | FileCheck %s --check-prefix=TILE
// RUN: flash-opt %s --flash-split-kv --flash-tile --flash-online-softmax | FileCheck %s --check-prefix=SOFTMAX
// RUN: flash-opt %s --flash-split-kv --flash-tile | FileCheck %s --check-prefix=SPLIT
// RUN: flash-opt %s --flash-fold-gqa | FileCheck %s --check-prefix=FOLD

// The block_mask hint through flash-tile: per program (BlockM = 64 rows,
// hint rows of QB = 32) the hint rows row0 / 32 .. min(row0 + 63, Sq - 1) / 32
// are loaded (ceil(63 / 32) + 1 = 3 loads of 4 fields, the row clamped to
// the last) and combined (vlo min, vhi max, flo max, fhi min); the key
// intervals become blocks of BlockN = 32 (visible: floor(vlo / 32) to
// ceil(vhi / 32), none when vhi <= vlo; full: ceil(flo / 32) to
// floor(fhi / 32)) and narrow the causal ranges, clamped in order. The
// loops stay one descending run (masked_right, mask_mod, main, mask_mod);
// only the masked_right and mask_mod loops' updates carry the mask_mod, so
// after flash-online-softmax the main loop has no mask at all.
// A static 1 in the hint's batch dim broadcasts (index 0), the head dim
// follows the grid's head. No static iteration counts (the hint is data);
// the grid records block_mask_rows for the ABI record.

// TILE-LABEL: func.func @docmask
// TILE-SAME: %[[HINT:[^:]+]]: memref<1x?x?x4xi32>, %[[DOC:[^:]+]]: memref<?x?xi32>
// The hint bounds the KV loops, so it is the grid's block_mask operand.
// TILE: flash.grid (%[[M:.+]], %[[H:.+]], %[[B:.+]]) in ({{[^)]*}}) block_mask(%[[HINT]] : memref<1x?x?x4xi32>) attributes {block_mask_rows = 32 : i64, causal, config = {{.*}}, scale = {{.*}}} {
// TILE: %[[ROW0:.+]] = arith.muli %[[M]], %{{.+}} : index
// Causal kvRanges first: nMax, nMin, rStart (the band of ceil(64/32)+1 = 3).
// TILE: %[[NMAX:.+]] = arith.maxsi %{{.+}}, %{{.+}} : index
// TILE: %[[NMIN:.+]] = arith.minsi %{{.+}}, %[[NMAX]] : index
// TILE: %[[RS0:.+]] = arith.maxsi %[[NMIN]], %{{.+}} : index
// TILE: %[[ZERO:.+]] = arith.constant 0 : index
// TILE: %[[FIRST:.+]] = arith.floordivsi %[[ROW0]], %[[QB:.+]] : index
// TILE: %[[LASTROW:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// TILE: %[[LAST:.+]] = arith.floordivsi %[[LASTROW]], %{{.+}} : index
// TILE: memref.load %[[HINT]][%[[ZERO]], %[[H]], %[[FIRST]], %{{.+}}]
// TILE-COUNT-3: memref.load %[[HINT]][%[[ZERO]], %[[H]], %[[FIRST]], %{{.+}}]
// TILE: %[[R1:.+]] = arith.minsi %{{.+}}, %[[LAST]] : index
// TILE-COUNT-4: memref.load %[[HINT]][%[[ZERO]], %[[H]], %[[R1]], %{{.+}}]
// TILE: %[[VLO1:.+]] = arith.minsi
// TILE-NEXT: %[[VHI1:.+]] = arith.maxsi
// TILE-NEXT: %[[FLO1:.+]] = arith.maxsi
// TILE-NEXT: %[[FHI1:.+]] = arith.minsi
// TILE: %[[R2:.+]] = arith.minsi %{{.+}}, %[[LAST]] : index
// TILE-COUNT-4: memref.load %[[HINT]][%[[ZERO]], %[[H]], %[[R2]], %{{.+}}]
// TILE-NOT: memref.load %[[HINT]]
// TILE: %[[VLO:.+]] = arith.minsi %[[VLO1]]
// TILE-NEXT: %[[VHI:.+]] = arith.maxsi %[[VHI1]]
// TILE-NEXT: %[[FLO:.+]] = arith.maxsi %[[FLO1]]
// TILE-NEXT: %[[FHI:.+]] = arith.minsi %[[FHI1]]
// TILE: %[[LO:.+]] = arith.floordivsi %[[VLO]], %[[BN:.+]] : index
// TILE-NEXT: %[[HIC:.+]] = arith.ceildivsi %[[VHI]], %[[BN]] : index
// TILE-NEXT: %[[EMPTY:.+]] = arith.cmpi sle, %[[VHI]], %[[VLO]] : index
// TILE-NEXT: %[[HI:.+]] = arith.select %[[EMPTY]], %[[LO]], %[[HIC]] : index
// TILE-NEXT: %[[T0:.+]] = arith.minsi %[[HI]], %[[NMAX]] : index
// TILE-NEXT: %[[UB:.+]] = arith.maxsi %[[NMIN]], %[[T0]] : index
// TILE-NEXT: %[[T1:.+]] = arith.minsi %[[LO]], %[[UB]] : index
// TILE-NEXT: %[[LB:.+]] = arith.maxsi %[[NMIN]], %[[T1]] : index
// TILE-NEXT: %[[FLOB:.+]] = arith.ceildivsi %[[FLO]], %[[BN]] : index
// TILE-NEXT: %[[FULLLO:.+]] = arith.maxsi %[[NMIN]], %[[FLOB]] : index
// TILE-NEXT: %[[FHIB:.+]] = arith.floordivsi %[[FHI]], %[[BN]] : index
// TILE-NEXT: %[[FULLHI:.+]] = arith.minsi %[[RS0]], %[[FHIB]] : index
// TILE-NEXT: %[[T2:.+]] = arith.minsi %[[FULLHI]], %[[UB]] : index
// TILE-NEXT: %[[RS:.+]] = arith.maxsi %[[LB]], %[[T2]] : index
// TILE-NEXT: %[[T3:.+]] = arith.minsi %[[FULLLO]], %[[RS]] : index
// TILE-NEXT: %[[LE:.+]] = arith.maxsi %[[LB]], %[[T3]] : index
// The runs, right to left: the causal band's blocks right of the unhinted
// main loop's end (RS0) stay element-masked with the mask_mod; the blocks
// the hint took out of the main loop get the mask_mod alone (role
// mask_mod: causal keeps them whole, so no `masked`), on both sides of the
// narrowed main loop (no left window: the left run starts at LB).
// TILE: %[[RSC:.+]] = arith.minsi %[[RS0]], %[[UB]] : index
// TILE-NEXT: %[[R1:.+]] = arith.maxsi %[[RS]], %[[RSC]] : index
// TILE: flash.kv_loop masked_right %{{.+}} = %[[R1]] to %[[UB]] reversed
// TILE: flash.tile_update {{.*}} {causal, masked, scale = {{.*}}} : {{.*}} mask_mod {
// TILE: memref.load %[[DOC]][%[[B]], %{{.+}}]
// TILE: flash.kv_loop mask_mod %{{.+}} = %[[RS]] to %[[R1]] reversed
// TILE: flash.tile_update {{.*}} {causal, scale = {{.*}}} : {{.*}} mask_mod {
// TILE: memref.load %[[DOC]][%[[B]], %{{.+}}]
// TILE: flash.kv_loop main %{{.+}} = %[[LE]] to %[[RS]] reversed
// TILE: flash.tile_update {{.*}} {causal, scale = {{.*}}} : {{.*}}, tensor<64xf32>{{$}}
// TILE-NEXT: flash.yield
// TILE: flash.kv_loop mask_mod %{{.+}} = %[[LB]] to %[[LE]] reversed
// TILE: flash.tile_update {{.*}} {causal, scale = {{.*}}} : {{.*}} mask_mod {
// TILE-NOT: flash.kv_loop
// TILE: flash.tile_finalize

// SOFTMAX-LABEL: func.func @docmask
// SOFTMAX-SAME: %[[DOC:[^:]+]]: memref<?x?xi32>
// SOFTMAX: flash.kv_loop masked_right
// SOFTMAX: memref.load %[[DOC]]
// SOFTMAX: flash.kv_loop mask_mod
// SOFTMAX: memref.load %[[DOC]]
// SOFTMAX: flash.kv_loop main
// SOFTMAX-NOT: memref.load %[[DOC]]
// SOFTMAX: flash.kv_loop mask_mod
// SOFTMAX: memref.load %[[DOC]]

// Split-KV carries the hint: the partial attention keeps block_mask and its
// rows, and flash-tile clips the narrowed ranges to the split's blocks.
// SPLIT-LABEL: func.func @docmask_split
// SPLIT: flash.grid (%{{.+}}, %{{.+}}, %{{.+}}, %[[S:.+]]) in
// SPLIT-COUNT-12: memref.load %{{.+}} : memref<1x?x?x4xi32>
// SPLIT: arith.select
// SPLIT: arith.muli %[[S]], %{{.+}} : index
// SPLIT: flash.kv_loop masked_right
// SPLIT: flash.kv_loop mask_mod
// SPLIT: flash.kv_loop main
// SPLIT: flash.kv_loop mask_mod
// SPLIT: flash.grid {{.*}} attributes {combine}

// fold-gqa declines: a block mask needs a mask_mod, whose (h, i) would
// change meaning once heads become rows.
// FOLD-LABEL: func.func @decode
// FOLD-NOT: memref.reinterpret_cast
// FOLD: flash.attention ins({{.*}} : memref<?x8x1x64xf16>, {{.*}}) block_mask({{.*}} : memref<?x8x1x4xi32>) outs({{.*}}) {block_mask_rows = 1 : i64

func.func @docmask(%q: memref<1x8x?x32xf32>, %k: memref<1x2x?x32xf32>,
                   %v: memref<1x2x?x32xf32>, %hint: memref<1x?x?x4xi32>,
                   %doc: memref<?x?xi32>, %o: memref<1x8x?x32xf32>) {
  flash.attention ins(%q, %k, %v : memref<1x8x?x32xf32>, memref<1x2x?x32xf32>, memref<1x2x?x32xf32>)
      block_mask(%hint : memref<1x?x?x4xi32>) captures(%doc : memref<?x?xi32>)
      outs(%o : memref<1x8x?x32xf32>)
      {causal, block_mask_rows = 32 : i64, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_split(%q: memref<1x8x?x32xf32>, %k: memref<1x2x?x32xf32>,
                   %v: memref<1x2x?x32xf32>, %hint: memref<1x?x?x4xi32>,
                   %doc: memref<?x?xi32>, %o: memref<1x8x?x32xf32>) {
  flash.attention ins(%q, %k, %v : memref<1x8x?x32xf32>, memref<1x2x?x32xf32>, memref<1x2x?x32xf32>)
      block_mask(%hint : memref<1x?x?x4xi32>) captures(%doc : memref<?x?xi32>)
      outs(%o : memref<1x8x?x32xf32>)
      {causal, block_mask_rows = 32 : i64, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, splits = 2>}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @decode(%q: memref<?x8x1x64xf16>, %k: memref<?x2x?x64xf16>,
                  %v: memref<?x2x?x64xf16>, %hint: memref<?x8x1x4xi32>,
                  %o: memref<?x8x1x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x1x64xf16>, memref<?x2x?x64xf16>, memref<?x2x?x64xf16>)
      block_mask(%hint : memref<?x8x1x4xi32>) outs(%o : memref<?x8x1x64xf16>)
      {block_mask_rows = 1 : i64, config = #flash.config<block_m = 16, block_n = 64, warps = 4, stages = 2>}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 100 : index
        %lt = arith.cmpi slt, %j, %c : index
        flash.yield %lt : i1
      }
  return
}
