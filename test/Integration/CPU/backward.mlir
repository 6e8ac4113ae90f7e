// flash.attention_backward on the CPU path: each function is lowered by
// flash-lower-to-cpu (flash-tile's three backward grids, then
// flash-backward-recompute) and checked by flash-run against the double
// reference's analytic gradients (ref::attentionBackward), given the
// forward reference's O and LSE. Both layouts; GQA (Hq = 4, Hkv = 2) and
// MQA (8:1); Sq < Sk, Sq > Sk and tails that end inside a block (16 x 16
// tiles); causal (bottom-right), a window, softcap, ALiBi, a score_mod with
// a capture (its derivative written by ModDerivative, the reference's taken
// by central differences of the region) and a document mask_mod whose
// independent query and key ids leave some rows without keys (dQ = 0 there)
// and some keys without rows (dK = dV = 0).

// DEFINE: %{shapes} = '2,4,2,1,1;2,4,2,17,40;1,4,2,40,17;2,4,2,33,33;1,8,1,20,50;3,4,2,16,16'
// RUN: flash-run %s --seed=11 --func=plain --layout=bhsd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=plain --layout=bshd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=causal --layout=bhsd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=causal --layout=bshd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=window --layout=bhsd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=softcap --layout=bshd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=alibi_causal --layout=bhsd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=relbias --layout=bhsd --tol=1e-5 --shapes=%{shapes} --capture=uniform:-0.05,0.05@Hq | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=tanh_mod --layout=bshd --tol=1e-5 --shapes=%{shapes} | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=docmask --layout=bhsd --tol=1e-5 --shapes=%{shapes} --capture=docs:3@BxSq --capture=docs:3@BxSk | FileCheck %s --check-prefix=ALL
// RUN: flash-run %s --seed=11 --func=plain --layout=bhsd --tol=2e-5 --inputs=large --shapes=%{shapes} | FileCheck %s --check-prefix=ALL

// ALL-NOT: FAIL
// ALL: flash-run: 6/6 cases passed

!T = memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32>

func.func @plain(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>}
  return
}

func.func @causal(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>}
  return
}

func.func @window(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {window = array<i64: 9, 3>, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>}
  return
}

func.func @softcap(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {softcap = 0.5 : f32, scale = 1.0 : f32, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>}
  return
}

func.func @alibi_causal(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %slopes: memref<?xf32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      alibi(%slopes : memref<?xf32>)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>}
  return
}

func.func @relbias(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %bias: memref<?xf32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      captures(%bias : memref<?xf32>)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>} score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %tb: memref<?xf32>):
        %w = memref.load %tb[%h] : memref<?xf32>
        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %d = arith.subi %jj, %ii : i64
        %df = arith.sitofp %d : i64 to f32
        %r = math.fma %w, %df, %s : f32
        flash.yield %r : f32
      }
  return
}

// A score_mod with a non-trivial derivative: 2 tanh(s / 2) + s^2 / 8.
func.func @tanh_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>} score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %two = arith.constant 2.0 : f32
        %eighth = arith.constant 0.125 : f32
        %x = arith.divf %s, %two : f32
        %t = math.tanh %x : f32
        %c = arith.mulf %t, %two : f32
        %sq = arith.mulf %s, %s : f32
        %r = math.fma %sq, %eighth, %c : f32
        flash.yield %r : f32
      }
  return
}

func.func @docmask(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      captures(%qd, %kd : memref<?x?xi32>, memref<?x?xi32>)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 1>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %a: memref<?x?xi32>, %c: memref<?x?xi32>):
        %di = memref.load %a[%b, %i] : memref<?x?xi32>
        %dj = memref.load %c[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
