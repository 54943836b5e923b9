package hb

// The full-vector-clock oracle keeps, per word, every thread's last access
// of each class with the accessing thread's whole vector clock at that
// access, and finds the maximal members of P by brute force: collect the
// last accesses that conflict and do not happen before the current one,
// then drop each that happens before another of them. Earlier accesses of
// the same thread and class always happen before the last one, so they
// can never be maximal and need not be kept. It shares the clocks of the
// synchronisation events with the FastTrack detector and nothing else.

// fullAcc is one thread's last access of one class to a word.
type fullAcc struct {
	clock uint64 // the thread's own clock at the access (0: none)
	seq   uint64 // the access's position in the run, for program order
	pc    int32
	snap  vclock // the thread's vector clock at the access
}

// fullWord is the oracle's record of one word: last[k][t] is thread t's
// last access of class k.
type fullWord struct {
	last [numClasses][]fullAcc
}

// fullCand is a member of P during the oracle's search.
type fullCand struct {
	tid int
	acc *fullAcc
}

// fullHB reports whether access p (of thread pt) happens before access q
// (of thread qt).
func fullHB(pt int, p *fullAcc, qt int, q *fullAcc) bool {
	if pt == qt {
		return p.seq < q.seq
	}
	return p.clock <= q.snap.get(pt)
}

// fullAccess is the oracle's access: check, then record.
func (d *Detector) fullAccess(t int, c vclock, a uint64, pc int32, k class) {
	fw := d.oracle[a]
	if fw == nil {
		fw = &fullWord{}
		d.oracle[a] = fw
	}
	d.seq++
	var ps []fullCand
	for _, cl := range conflicts[k] {
		for u := range fw.last[cl] {
			p := &fw.last[cl][u]
			if p.clock != 0 && p.clock > c.get(u) {
				ps = append(ps, fullCand{u, p})
			}
		}
	}
	for i, p := range ps {
		maximal := true
		for j, q := range ps {
			if i != j && fullHB(p.tid, p.acc, q.tid, q.acc) {
				maximal = false
				break
			}
		}
		if maximal {
			d.cands = append(d.cands, cand{pc: p.acc.pc, tid: int32(p.tid)})
		}
	}
	for len(fw.last[k]) <= t {
		fw.last[k] = append(fw.last[k], fullAcc{})
	}
	r := &fw.last[k][t]
	r.clock, r.seq, r.pc = c[t], d.seq, pc
	r.snap.set(c)
}
