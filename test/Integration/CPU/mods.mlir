// FlexAttention-style score_mod / mask_mod regions with captures, and ALiBi
// (expanded by flash-tile into the same score_mod mechanism), on the CPU
// path: each function is lowered by flash-lower-to-cpu and checked by
// flash-run against the double reference, which evaluates the regions from
// the op's own IR (ScalarEval) and applies ALiBi itself. Both layouts, GQA
// (Hq = 4, Hkv = 2; and MQA 8:1), causal, split-KV (partial + combine),
// kv_lens and a window. The document mask draws independent sorted ids for
// queries and keys, so some rows see no key (O = 0, LSE = -inf).
// softcap_region and softcap_attr compute the same function (tanh softcap
// as a region and as the attribute) on the same seed and shapes.

// RUN: flash-run %s --seed=7 --func=relbias --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.05,0.05@Hq \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=relbias --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.05,0.05@Hq \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=relbias_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.05,0.05@Hq \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=relbias_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.05,0.05@Hq \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=softcap_region --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=softcap_region --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=softcap_attr --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=softcap_attr --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=docmask --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=docmask --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=docmask_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=docmask_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=prefix_lm --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=prefix_lm --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=prefix_lm_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=prefix_lm_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=alibi_heads --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=alibi_heads --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=alibi_batch_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=alibi_batch_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=everything_kv_lens --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.05,0.05@Hq --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=everything_kv_lens --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.05,0.05@Hq --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL7

// score_mod acts on the capped logit (softcap first), a bias large enough
// to tell the orders apart.
// RUN: flash-run %s --seed=7 --func=softcap_relbias --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.2,0.2@Hq \
// RUN:   | FileCheck %s --check-prefix=ALL7
// RUN: flash-run %s --seed=7 --func=softcap_relbias --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129' --capture=uniform:-0.2,0.2@Hq \
// RUN:   | FileCheck %s --check-prefix=ALL7

// ALL7-NOT: FAIL
// ALL7: flash-run: 7/7 cases passed

func.func @relbias(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %bias: memref<?xf32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%bias : memref<?xf32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} score_mod {
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

func.func @relbias_causal_split(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %bias: memref<?xf32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%bias : memref<?xf32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2, splits = 3>} score_mod {
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

func.func @softcap_region(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, scale = 2.0 : f32, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %cap = arith.constant 20.0 : f32
        %x = arith.divf %s, %cap : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        flash.yield %r : f32
      }
  return
}

func.func @softcap_attr(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, scale = 2.0 : f32, softcap = 20.0 : f32, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>}
  return
}

func.func @docmask(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_causal_split(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2, splits = 3>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @prefix_lm(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %prefix: memref<?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%prefix : memref<?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
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

func.func @prefix_lm_split(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %prefix: memref<?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%prefix : memref<?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2, splits = 3>} mask_mod {
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

func.func @alibi_heads(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %slopes: memref<?xf32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) alibi(%slopes : memref<?xf32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>}
  return
}

func.func @alibi_batch_causal_split(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %slopes: memref<?x?xf32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) alibi(%slopes : memref<?x?xf32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2, splits = 3>}
  return
}

func.func @everything_kv_lens(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %slopes: memref<?xf32>, %lens: memref<?xi32>, %bias: memref<?xf32>, %prefix: memref<?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) alibi(%slopes : memref<?xf32>) kv_lens(%lens : memref<?xi32>) captures(%bias, %prefix : memref<?xf32>, memref<?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {window = array<i64: 40, 3>, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %tb: memref<?xf32>, %pf: memref<?xi32>):
        %w = memref.load %tb[%h] : memref<?xf32>
        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %d = arith.subi %jj, %ii : i64
        %df = arith.sitofp %d : i64 to f32
        %r = math.fma %w, %df, %s : f32
        flash.yield %r : f32
      } mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %tb: memref<?xf32>, %pf: memref<?xi32>):
        %p = memref.load %pf[%b] : memref<?xi32>
        %pi = arith.index_cast %p : i32 to index
        %in = arith.cmpi slt, %j, %pi : index
        %le = arith.cmpi sle, %j, %i : index
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return
}

func.func @softcap_relbias(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %bias: memref<?xf32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%bias : memref<?xf32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, scale = 4.0 : f32, softcap = 2.0 : f32, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} score_mod {
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
