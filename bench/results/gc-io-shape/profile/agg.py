import sys, collections
f, a, b = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
cpu=collections.Counter(); wait=collections.Counter(); sl=collections.Counter(); names={}
st=[]
for l in open(f):
    p=l.split()
    t=float(p[0])
    if not (a<=t<=b): continue
    if p[1]=='stat': st.append(list(map(int,p[2:]))); continue
    k=(p[1],p[2]); cpu[k]+=float(p[3]); wait[k]+=float(p[4]); sl[k]+=int(p[5])
for k in sorted(cpu, key=lambda k:-cpu[k]):
    if cpu[k]+wait[k] < 5: continue
    print(f"{k[1]:18s} {k[0]:>6s} cpu {cpu[k]:8.0f} ms  runq-wait {wait[k]:7.0f} ms  slices {sl[k]:7d}  wait/slice {wait[k]*1000/max(sl[k],1):6.1f} us")
if len(st)>1:
    d=[x-y for x,y in zip(st[-1],st[0])]
    tot=sum(d); names=['user','nice','sys','idle','iowait','irq','softirq','steal']
    print(' '.join(f"{n} {100*v/tot:.0f}%" for n,v in zip(names,d)))
