// Two document masks for uniform-blocks.test: flash-plan picks the
// wgmma config with uniform blocks for them on sm_90a (the attention
// functions of ../../Conversion/FlashToGPU/Inputs/uniform-blocks.mlir).

!F = memref<?x?x?x64xbf16>
func.func @docmask(%q: !F, %k: !F, %v: !F, %doc: memref<?x?xi32>, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc : memref<?x?xi32>) outs(%o : !F)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_pad(%q: !F, %k: !F, %v: !F, %doc: memref<?x?xi32>, %pad: memref<?x?xi32>, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc, %pad : memref<?x?xi32>, memref<?x?xi32>) outs(%o : !F)
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
