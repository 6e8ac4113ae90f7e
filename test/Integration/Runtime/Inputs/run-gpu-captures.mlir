// The MLIR source of unittests/Runtime's fake_cap entry (FakeArtifact.c), as
// flash-run --artifact --source reads it for the reference: a mask_mod
// keeping keys of the query's document (ids i32 [B, S]) and a score_mod
// adding a per-head bias (f32 [4]), the entry's two captures in its order;
// and of its fake_alibi entry (causal, ALiBi slopes f32 [B, 4]).
!t = memref<?x4x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!kv = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!l = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @fake_cap(%q: !t, %k: !kv, %v: !kv, %doc: memref<?x?xi32>,
                    %bias: memref<4xf32>, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !kv, !kv)
      captures(%doc, %bias : memref<?x?xi32>, memref<4xf32>)
      outs(%o, %lse : !t, !l) {scale = 0.125 : f32}
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
           %d: memref<?x?xi32>, %t: memref<4xf32>):
        %w = memref.load %t[%h] : memref<4xf32>
        %r = arith.addf %s, %w : f32
        flash.yield %r : f32
      }
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index,
           %d: memref<?x?xi32>, %t: memref<4xf32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

!k2 = memref<?x2x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @fake_alibi(%q: !t, %k: !k2, %v: !k2, %slopes: memref<?x4xf32>,
                      %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !k2, !k2)
      alibi(%slopes : memref<?x4xf32>)
      outs(%o, %lse : !t, !l) {causal, scale = 0.125 : f32}
  return
}
