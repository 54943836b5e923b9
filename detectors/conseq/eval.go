package conseq

import "weft/isa"

// The error-condition evaluator: the stand-in for the paper's symbolic
// execution module (digest §5.1 item 9). Given a critical read r and an
// alternative value, it executes r's thread forward from the instruction
// after r with r's destination register and r's word holding the value,
// every other register unknown, and memory as it was just before r for
// the words the trace follows (every other word unknown; the thread's own
// stores during the evaluation are kept), and reports whether the site's
// error condition can then be violated: an ASS site reached with its
// register known zero, an ERR site (or a call to an error routine)
// reached, a LOOP site's branch taken back into the loop. A branch on an
// unknown value follows both ways. A path that passes the site with its
// condition holding goes on (a loop may bring it back); it is safe when it
// then exits the thread, returns from r's routine or runs out of budget,
// and so is a path that fails elsewhere first or exits before reaching the
// site. A path that reaches the site with an unknown condition, or
// returns from r's routine or runs out of budget before reaching it, is
// undecided (and the report is kept).

type verdict uint8

const (
	safe verdict = iota
	violated
	undecided
)

// evalBudget bounds the instructions one evaluation executes over all its
// paths.
const evalBudget = 2048

// evalPaths bounds the paths one evaluation follows.
const evalPaths = 64

type absVal struct {
	known bool
	v     int64
}

type evalState struct {
	pc     int32
	regs   [isa.NumRegs]absVal
	stack  []int32
	mem    map[uint64]absVal // the evaluation's own stores
	dirty  bool              // a store to an unknown address happened
	passed bool              // the path passed the site with its condition holding
}

type evaluator struct {
	p *isa.Program
}

func newEvaluator(p *isa.Program) *evaluator { return &evaluator{p: p} }

// check evaluates site's condition after r with its register holding alt;
// mem gives a word's value just before r.
func (ev *evaluator) check(site Site, a *Analysis, r *access, alt int64, mem func(uint64) (int64, bool)) verdict {
	in := &ev.p.Instrs[r.pc]
	if in.Op != isa.OpLd {
		return undecided // an RMW's read: its stored value depends on it too
	}
	st := &evalState{pc: r.pc + 1, mem: map[uint64]absVal{r.addr &^ (isa.WordBytes - 1): {known: true, v: alt}}}
	st.regs[0] = absVal{known: true}
	st.regs[in.Rd] = absVal{known: true, v: alt}
	if in.Rd == 0 {
		st.regs[0] = absVal{known: true}
	}
	budget, paths := evalBudget, 1
	out := safe
	work := []*evalState{st}
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		v, fork := ev.run(s, site, a, r.thread, mem, &budget)
		if fork != nil {
			if paths >= evalPaths {
				v = undecided
			} else {
				paths++
				work = append(work, fork)
				work = append(work, s)
				continue
			}
		}
		switch v {
		case violated:
			return violated
		case undecided:
			out = undecided
		}
	}
	return out
}

// run executes s until it decides, or forks on an unknown branch (the
// fork is the taken side; s continues with the fall-through).
func (ev *evaluator) run(s *evalState, site Site, a *Analysis, tid int32, mem func(uint64) (int64, bool), budget *int) (verdict, *evalState) {
	p := ev.p
	// open is the verdict of a path that ends without deciding.
	open := func() verdict {
		if s.passed {
			return safe
		}
		return undecided
	}
	for {
		if *budget <= 0 || s.pc < 0 || int(s.pc) >= len(p.Instrs) {
			return open(), nil
		}
		*budget--
		in := &p.Instrs[s.pc]
		rg := &s.regs
		get := func(x uint8) absVal {
			if x == 0 {
				return absVal{known: true}
			}
			return rg[x]
		}
		second := func() absVal {
			if in.UseImm {
				return absVal{known: true, v: in.Imm}
			}
			return get(in.Rt)
		}
		set := func(x uint8, v absVal) {
			if x != 0 && x < isa.NumRegs {
				rg[x] = v
			}
		}
		addr := func() (uint64, bool) {
			if in.Base == 0 {
				return uint64(in.Off), true
			}
			b := get(in.Base)
			return uint64(b.v + in.Off), b.known
		}
		pc := s.pc
		s.pc++
		switch op := in.Op; {
		case op == isa.OpLi || op == isa.OpLa:
			set(in.Rd, absVal{known: true, v: in.Imm})
		case op == isa.OpMov:
			set(in.Rd, get(in.Rs))
		case op == isa.OpTid:
			set(in.Rd, absVal{known: true, v: int64(tid)})
		case op.IsALU():
			x, y := get(in.Rs), second()
			if !x.known || !y.known {
				set(in.Rd, absVal{})
				break
			}
			v, ok := alu(op, x.v, y.v)
			set(in.Rd, absVal{known: ok, v: v})
		case op == isa.OpLd:
			at, ok := addr()
			switch {
			case !ok || s.dirty:
				set(in.Rd, absVal{})
			default:
				at &^= isa.WordBytes - 1
				if v, mine := s.mem[at]; mine {
					set(in.Rd, v)
				} else {
					v, known := mem(at)
					set(in.Rd, absVal{known: known, v: v})
				}
			}
		case op == isa.OpSt:
			at, ok := addr()
			if !ok {
				s.dirty = true
				break
			}
			s.mem[at&^(isa.WordBytes-1)] = get(in.Rs)
		case op.IsRMW():
			at, ok := addr()
			if !ok {
				s.dirty = true
			} else {
				s.mem[at&^(isa.WordBytes-1)] = absVal{}
			}
			set(in.Rd, absVal{})
		case op == isa.OpAlloc || op == isa.OpSpawn:
			set(in.Rd, absVal{})
		case op == isa.OpAssert:
			c := get(in.Rs)
			if pc == site.PC && site.Kind == ASS {
				switch {
				case !c.known:
					return undecided, nil
				case c.v == 0:
					return violated, nil
				}
				s.passed = true
				break
			}
			if c.known && c.v == 0 {
				return safe, nil // another failure ends the run first
			}
			if !c.known {
				return undecided, nil
			}
		case op == isa.OpFail:
			if pc == site.PC && site.Kind == ERR {
				return violated, nil
			}
		case op == isa.OpExit:
			return safe, nil
		case op == isa.OpCall:
			if pc == site.PC && (site.Kind == ERR || site.Kind == ASS) {
				return violated, nil // a custom error or assertion routine's call
			}
			if len(s.stack) >= isa.ReturnStackDepth {
				return undecided, nil
			}
			s.stack = append(s.stack, pc+1)
			s.pc = in.Target
		case op == isa.OpRet:
			if len(s.stack) == 0 {
				return open(), nil // the site may be in a caller
			}
			s.pc = s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
		case op == isa.OpJmp:
			s.pc = in.Target
		case op.IsBranch():
			x := get(in.Rs)
			y := second()
			if op == isa.OpBeqz || op == isa.OpBnez {
				y = absVal{known: true}
			}
			var taken, known bool
			if x.known && y.known {
				known = true
				switch op {
				case isa.OpBeq, isa.OpBeqz:
					taken = x.v == y.v
				case isa.OpBne, isa.OpBnez:
					taken = x.v != y.v
				case isa.OpBlt:
					taken = x.v < y.v
				case isa.OpBge:
					taken = x.v >= y.v
				}
			}
			if pc == site.PC && site.Kind == LOOP {
				if !known {
					return undecided, nil
				}
				next := pc + 1
				if taken {
					next = in.Target
				}
				if a.g != nil && a.inLoopBlock(site, next) {
					return violated, nil
				}
				s.passed = true
			}
			if !known {
				f := &evalState{pc: in.Target, regs: s.regs, stack: append([]int32(nil), s.stack...),
					mem: make(map[uint64]absVal, len(s.mem)), dirty: s.dirty, passed: s.passed}
				for k, v := range s.mem {
					f.mem[k] = v
				}
				return undecided, f
			}
			if taken {
				s.pc = in.Target
			}
		}
	}
}

// inLoopBlock reports whether pc is in the body of the LOOP site's loop.
func (a *Analysis) inLoopBlock(s Site, pc int32) bool {
	if s.Loop < 0 || s.Loop >= len(a.Loops) || pc < 0 || int(pc) >= len(a.CFG.BlockOf) {
		return false
	}
	return hasInt(a.Loops[s.Loop].Body, a.CFG.BlockOf[pc])
}

// alu computes an ALU instruction on known operands; ok is false when the
// result is not defined (division by zero).
func alu(op isa.Op, a, b int64) (int64, bool) {
	switch op {
	case isa.OpAdd:
		return a + b, true
	case isa.OpSub:
		return a - b, true
	case isa.OpMul:
		return a * b, true
	case isa.OpDiv, isa.OpRem:
		if b == 0 {
			return 0, false
		}
		if b == -1 {
			if op == isa.OpDiv {
				return -a, true
			}
			return 0, true
		}
		if op == isa.OpDiv {
			return a / b, true
		}
		return a % b, true
	case isa.OpAnd:
		return a & b, true
	case isa.OpOr:
		return a | b, true
	case isa.OpXor:
		return a ^ b, true
	case isa.OpShl:
		return a << (uint64(b) & 63), true
	case isa.OpShr:
		return int64(uint64(a) >> (uint64(b) & 63)), true
	case isa.OpSar:
		return a >> (uint64(b) & 63), true
	case isa.OpSeq:
		return b2i(a == b), true
	case isa.OpSne:
		return b2i(a != b), true
	case isa.OpSlt:
		return b2i(a < b), true
	case isa.OpSle:
		return b2i(a <= b), true
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
