#!/usr/bin/env python3
"""ptx-stats: the CI-side proxy for a kernel change, without a GPU.

    scripts/ptx-stats.py OLD.ptx NEW.ptx ARCH     (e.g. sm_90a)

For every kernel (.entry) of two PTX modules of the same kernels (say the
suite compiled by the previous and the current flash-opt, see
scripts/compare-ptx.sh): ptxas -v registers and spill bytes, and a
histogram of its instructions by opcode family (mma, wgmma, ldmatrix,
shfl, ex2, cvt, bar, cp.async, fma, mul, add, ...), printing the families
whose counts differ. A kernel whose spills grow or whose registers grow by
more than 8 is marked <<<.
"""
import re,sys,subprocess,collections,os
def kernels(path):
    txt=open(path).read()
    ents=re.split(r'\n(?=\.visible \.entry|\.entry)',txt)
    out={}
    for e in ents[1:]:
        name=re.match(r'\.(?:visible )?\.?entry\s+(\w+)',e.strip()) or re.search(r'entry\s+(\w+)',e)
        name=name.group(1)
        h=collections.Counter()
        for line in e.split('\n'):
            t=line.strip().split()
            if not t or t[0].startswith(('.','/','{','}','$')) : continue
            op=t[0]
            if op.startswith('@'): op=t[1] if len(t)>1 else op
            base=op.split('.')[0]
            key={'mma':'mma','wgmma':'wgmma','ldmatrix':'ldmatrix','shfl':'shfl','ex2':'ex2','cvt':'cvt','bar':'bar','cp':'cp','fma':'fma','mul':'mul','add':'add','setp':'setp','selp':'selp','max':'max','tanh':'tanh','st':'st','ld':'ld'}.get(base,'other')
            h[key]+=1; h['total']+=1
        out[name]=h
    return out
def regs(path, arch):
    r=subprocess.run(['/usr/local/cuda/bin/ptxas','-arch='+arch,'-v',path,'-o','/dev/null'],capture_output=True,text=True)
    res={};cur=None
    for line in r.stderr.split('\n'):
        m=re.search(r"Compiling entry function '(\w+)'",line)
        if m: cur=m.group(1)
        m=re.search(r'(\d+) bytes spill stores, (\d+) bytes spill loads',line)
        if m and cur: res.setdefault(cur,{})['spill']=int(m.group(1))+int(m.group(2))
        m=re.search(r'Used (\d+) registers',line)
        if m and cur: res.setdefault(cur,{})['regs']=int(m.group(1))
    return res
old,new,arch=sys.argv[1:4]
ko,kn=kernels(old),kernels(new)
ro,rn=regs(old,arch),regs(new,arch)
keys=['total','mma','wgmma','ldmatrix','shfl','ex2','cvt','bar','cp','fma','mul','add','setp','selp','max','tanh','st','ld']
worse=0
for name in ko:
    a,b=ko[name],kn.get(name,{})
    diffs=[f"{k}:{a[k]}->{b.get(k,0)}" for k in keys if a[k]!=b.get(k,0)]
    r0,r1=ro.get(name,{}),rn.get(name,{})
    flag=''
    if r1.get('spill',0)>r0.get('spill',0) or r1.get('regs',0)>r0.get('regs',0)+8: flag='  <<<'; worse+=1
    print(f"{name[:60]:60s} regs {r0.get('regs')}->{r1.get('regs')} spill {r0.get('spill')}->{r1.get('spill')}{flag} | {' '.join(diffs[:12])}")
print('kernels',len(ko),'worse',worse)
