// A mask_mod reading one i32 capture [B, Sk] (flash-run-errors.test).
!t = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attn(%q: !t, %k: !t, %v: !t, %doc: memref<?x?xi32>, %o: !t) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) captures(%doc : memref<?x?xi32>)
      outs(%o : !t)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %x = memref.load %d[%b, %j] : memref<?x?xi32>
        %c = arith.constant 0 : i32
        %y = arith.cmpi eq, %x, %c : i32
        flash.yield %y : i1
      }
  return
}
