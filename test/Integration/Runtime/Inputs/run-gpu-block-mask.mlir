// The MLIR source of unittests/Runtime's fake_bm entry (FakeArtifact.c), as
// flash-run --artifact --source reads it for the reference: a document
// mask_mod (ids i32 [B, S]) with a block_mask hint of 16 rows per hint row,
// the hint the argument after V, as flashmlir's variants write it.
!t = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!l = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @fake_bm(%q: !t, %k: !t, %v: !t, %hint: memref<?x?x?x4xi32>,
                   %doc: memref<?x?xi32>, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t)
      block_mask(%hint : memref<?x?x?x4xi32>)
      captures(%doc : memref<?x?xi32>)
      outs(%o, %lse : !t, !l) {scale = 0.125 : f32, block_mask_rows = 16 : i64}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

// The same entry without its mask_mod: not the artifact's source.
func.func @fake_bm_nomask(%q: !t, %k: !t, %v: !t, %doc: memref<?x?xi32>,
                          %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t)
      captures(%doc : memref<?x?xi32>)
      outs(%o, %lse : !t, !l) {scale = 0.125 : f32}
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %f = arith.sitofp %di : i32 to f32
        %r = arith.addf %s, %f : f32
        flash.yield %r : f32
      }
  return
}
