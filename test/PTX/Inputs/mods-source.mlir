// score_mod / mask_mod / ALiBi through the whole GPU pipeline
// (captures.test): @mods is causal with ALiBi slopes [Hq] and a document
// mask_mod over captured ids [B, S]; @prefix a tanh softcap written as a
// score_mod and a prefix-LM mask_mod over captured prefix lengths [B].
// f16 head dim 32 here; the test substitutes bf16 / 64 for wgmma.

func.func @mods(%q: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %slope: memref<?xf32>, %doc: memref<?x?xi32>, %o: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>) alibi(%slope : memref<?xf32>) captures(%doc : memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @prefix(%q: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %prefix: memref<?xi32>, %o: memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>) captures(%prefix : memref<?xi32>) outs(%o, %lse : memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %pf: memref<?xi32>):
        %inv = arith.constant 0.02 : f32
        %cap = arith.constant 50.0 : f32
        %x = arith.mulf %s, %inv : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        flash.yield %r : f32
      } mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %pf: memref<?xi32>):
        %p = memref.load %pf[%b] : memref<?xi32>
        %pi = arith.index_cast %p : i32 to index
        %in = arith.cmpi slt, %j, %pi : index
        %le = arith.cmpi sle, %j, %i : index
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return
}
