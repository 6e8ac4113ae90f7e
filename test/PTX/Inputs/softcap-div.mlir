// A tanh softcap written as a score_mod with a division by the cap, once
// as IEEE division (arith.divf's default) and once with fastmath<arcp>
// (softcap-div.test).

!T = memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32>

func.func @ieee(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %cap = arith.constant 30.0 : f32
        %x = arith.divf %s, %cap : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        flash.yield %r : f32
      }
  return
}

func.func @arcp(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %cap = arith.constant 30.0 : f32
        %x = arith.divf %s, %cap fastmath<arcp> : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        flash.yield %r : f32
      }
  return
}
