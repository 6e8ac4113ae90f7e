// flash-tile's uniform blocks (UniformBlocks.h) on the CPU path: a mask_mod
// with a conjunct F(i) == G(j) has each KV block classified in the program
// (skipped when every key's G misses the rows' F range, run without the
// conjunct when every key's G is the rows' one F), the rest element-wise.
// flash-run checks each against the double reference, which evaluates the
// whole mask_mod at every (i, j). The query ids and the key ids are
// separate captures drawn four ways: sorted ids of 3 documents (blocks of
// all three kinds), one document (every block full), unsorted ids in
// [0, 2) (mostly partial) and 40 sorted documents (mostly empty blocks, and
// rows that see no key: O = 0, LSE = -inf). Both layouts and GQA / MQA;
// docmask_halves has the key side on the left and arithmetic on both
// sides, docmask_window the conjunct beside a key bound (the full blocks
// keep the window), docmask_causal_split causal with split-KV, and
// docmask_shifted a key side that reads i (not the form: element-wise).
// Before the KV loops one scan of the program's keys gives its hint (the
// first and last key whose G lies in the rows' range, the same interval
// as whole when the rows share one F and every key between has it): the
// runs then skip the keys outside it and run the whole interval without
// the mask_mod; where the conjunct is the whole mask no block is tested on
// its own.
// RUN: sed -e "s/stages = 2>/stages = 2, uniform_blocks = true>/" %s | flash-opt --flash-split-kv --flash-tile | FileCheck %s --check-prefix=IR

// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_halves --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_halves --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_halves --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_halves --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_window --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_window --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_window --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_window --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_shifted --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_shifted --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_shifted --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=13 --func=docmask_shifted --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8

// More keys than one chunk of the scan (3072): its partial results are
// carried from chunk to chunk (the LSE of documents of thousands of keys
// rounds past 1e-5: --lse-rtol).
// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3
// RUN: flash-run %s --seed=13 --func=docmask --layout=bshd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3
// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=docs:40@BxSq --capture=docs:40@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3
// RUN: flash-run %s --seed=13 --func=docmask --layout=bhsd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=randint:0,2@BxSq --capture=randint:0,2@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bshd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bhsd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3
// RUN: flash-run %s --seed=13 --func=docmask_window --layout=bshd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --shapes='1,2,1,33,3100;1,1,1,70,6200;2,2,1,5,7000' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=LONG3

// An embedder's canonicalize and cse after every flash pass (the scan's
// scf.for and reductions, the runs' bounds) change no result.
// RUN: flash-run %s --seed=13 --func=docmask --layout=bshd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --pipeline="builtin.module(flash-fold-gqa,canonicalize,cse,flash-plan{uniform-blocks=true},canonicalize,cse,flash-split-kv,canonicalize,cse,flash-tile,canonicalize,cse,flash-online-softmax,canonicalize,cse,flash-tile-to-scf,canonicalize,cse,flash-lower-to-cpu)" \
// RUN:   --shapes='2,4,2,17,17;1,4,2,100,37;1,2,1,33,3100;2,2,1,5,7000' --capture=const:5@BxSq --capture=const:5@BxSk \
// RUN:   | FileCheck %s --check-prefix=CLEAN4
// RUN: flash-run %s --seed=13 --func=docmask_causal_split --layout=bshd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --pipeline="builtin.module(flash-fold-gqa,canonicalize,cse,flash-plan{uniform-blocks=true},canonicalize,cse,flash-split-kv,canonicalize,cse,flash-tile,canonicalize,cse,flash-online-softmax,canonicalize,cse,flash-tile-to-scf,canonicalize,cse,flash-lower-to-cpu)" \
// RUN:   --shapes='2,4,2,17,17;1,4,2,100,37;1,2,1,33,3100;2,2,1,5,7000' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=CLEAN4
// RUN: flash-run %s --seed=13 --func=docmask_window --layout=bshd --tol=1e-5 --lse-rtol=2e-5 \
// RUN:   --pipeline="builtin.module(flash-fold-gqa,canonicalize,cse,flash-plan{uniform-blocks=true},canonicalize,cse,flash-split-kv,canonicalize,cse,flash-tile,canonicalize,cse,flash-online-softmax,canonicalize,cse,flash-tile-to-scf,canonicalize,cse,flash-lower-to-cpu)" \
// RUN:   --shapes='2,4,2,17,17;1,4,2,100,37;1,2,1,33,3100;2,2,1,5,7000' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=CLEAN4

// ALL8-NOT: FAIL
// ALL8: flash-run: 8/8 cases passed

// CLEAN4-NOT: FAIL
// CLEAN4: flash-run: 4/4 cases passed

// LONG3-NOT: FAIL
// LONG3: flash-run: 3/3 cases passed

// The scan and FA2's three loops for the whole-mask functions, the
// per-block test for the one beside a key bound, nothing for the one whose
// key side reads i.
// IR-LABEL: func.func @docmask(
// IR: linalg.generic {{.*}} iterator_types = ["reduction"]
// The scan of the program's keys: per chunk of 3072, in = key in range and
// (G - lo) <=u (hi - lo); first, one past the last and the count of such
// keys, reduced after the loop into the program's hint.
// IR: %[[SCAN:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c3072 iter_args({{.*}}) -> (tensor<3072xindex>, tensor<3072xindex>, tensor<3072xindex>)
// IR: %[[OFF:.*]] = arith.subi %{{.*}}, %[[RLO:[a-z_0-9]+]] : i32
// IR: %[[SPAN:.*]] = arith.subi %[[RHI:[a-z_0-9]+]], %[[RLO]] : i32
// IR: arith.cmpi ule, %[[OFF]], %[[SPAN]] : i32
// IR: scf.yield
// IR: arith.minsi %in, %out
// IR: %[[VLO:.*]] = tensor.extract
// IR: arith.maxsi %in, %out
// IR: %[[VHI:.*]] = tensor.extract
// IR: arith.addi %in, %out
// IR: %[[COUNT:.*]] = tensor.extract
// IR: %[[LEN:.*]] = arith.subi %[[VHI]], %[[VLO]] : index
// IR: %[[ALL:.*]] = arith.cmpi eq, %[[COUNT]], %[[LEN]] : index
// IR: %[[ONEDOC:.*]] = arith.cmpi eq, %[[RLO]], %[[RHI]] : i32
// IR: %[[FULL:.*]] = arith.andi %[[ONEDOC]], %[[ALL]] : i1
// IR: arith.select %[[FULL]], %[[VLO]], %c0
// IR: arith.select %[[FULL]], %[[VHI]], %c0
// FA2's three loops, no per-block test (the conjunct is the whole mask): the
// masked band with the mask_mod element-wise, the keys' whole interval with
// no mask_mod at all, the blocks left of it with the mask_mod alone.
// IR-NOT: scf.if
// IR: flash.kv_loop
// IR-NOT: scf.if
// IR: flash.tile_update {{.*}} {masked, {{.*}} mask_mod
// IR-NOT: scf.if
// IR: flash.kv_loop
// IR-NOT: mask_mod
// IR: flash.kv_loop
// IR-NOT: scf.if
// IR: flash.tile_update {{.*}} mask_mod
// IR-NOT: scf.if
// IR-LABEL: func.func @docmask_halves(
// IR-LABEL: func.func @docmask_window(
// The conjunct beside a key bound: each block of the keys' interval is
// decided (skipped, or run without the conjunct, or element-wise).
// IR: arith.cmpi eq, %in, %[[LO:[a-z_0-9]+]] : i32
// IR: %[[ALLEQ:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// IR: %[[ONE:.*]] = arith.cmpi eq, %[[LO]], %[[HI:[a-z_0-9]+]] : i32
// IR: arith.cmpi slt, %in, %[[LO]]
// IR: arith.cmpi sgt, %in, %[[HI]]
// IR: %[[SKIP:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// IR-NEXT: %[[WHOLE:.*]] = arith.andi %[[ONE]], %[[ALLEQ]] : i1
// IR-NEXT: scf.if %[[SKIP]] -> (tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>) {
// IR-NEXT: scf.yield %arg
// IR-NEXT: } else {
// IR-NEXT: scf.if %[[WHOLE]]
// IR: scf.if
// IR: scf.if
// IR-NEXT: flash.tile_update {{.*}} mask_mod
// IR-NOT: arith.cmpi eq
// IR: %[[KEPT:.*]] = arith.andi %{{.*}}, %true
// IR-NEXT: flash.yield %[[KEPT]]
// IR-LABEL: func.func @docmask_shifted(
// IR-NOT: scf.if
// IR: return

func.func @docmask(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?x?xi32>, %r1: memref<?x?xi32>):
        %di = memref.load %r0[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r1[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_halves(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?x?xi32>, %r1: memref<?x?xi32>):
        %di = memref.load %r0[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r1[%b, %j] : memref<?x?xi32>
        %c2 = arith.constant 2 : i32
        %hi = arith.divsi %di, %c2 : i32
        %hj = arith.divsi %dj, %c2 : i32
        %same = arith.cmpi eq, %hj, %hi : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_window(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?x?xi32>, %r1: memref<?x?xi32>):
        %di = memref.load %r0[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r1[%b, %j] : memref<?x?xi32>
        %d = arith.subi %i, %j : index
        %c20 = arith.constant 20 : index
        %near = arith.cmpi sle, %d, %c20 : index
        %same = arith.cmpi eq, %di, %dj : i32
        %both = arith.andi %near, %same : i1
        flash.yield %both : i1
      }
  return
}

func.func @docmask_causal_split(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2, splits = 3>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?x?xi32>, %r1: memref<?x?xi32>):
        %di = memref.load %r0[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r1[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_shifted(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?x?xi32>, %r1: memref<?x?xi32>):
        %di = memref.load %r0[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r1[%b, %j] : memref<?x?xi32>
        %ii = arith.index_cast %i : index to i32
        %c7 = arith.constant 7 : i32
        %m = arith.remsi %ii, %c7 : i32
        %dshift = arith.addi %dj, %m : i32
        %same = arith.cmpi eq, %di, %dshift : i32
        flash.yield %same : i1
      }
  return
}
