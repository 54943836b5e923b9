package core

import (
	"fmt"
	"strings"
)

// Field says what one field of an Event means for one kind. A zero Field
// is unused: the field is zero (-1 for Core and Thread, NoPC for PC).
type Field struct {
	// Label names the field in `weft trace --text` (e.g. "gen").
	Label string
	// Doc says what the field holds.
	Doc string
	// MayBeNone allows -1 (NoPC) in a used Core, Thread or PC field.
	MayBeNone bool
}

// Used reports whether the kind uses the field.
func (f Field) Used() bool { return f.Label != "" }

// Contract is the event contract of one kind: what each field of its
// events means, who emits them, and which flags they may carry. A detector
// author needs nothing else to read the stream.
type Contract struct {
	// Kind is the kind described.
	Kind Kind
	// Group is the kind's group: program, coherence, bugaboo, pset or run.
	Group string
	// Producer names what emits the kind ("" when nothing emits it yet).
	Producer string
	// Doc says what one event reports and when it is emitted.
	Doc string
	// Core, Thread, PC, Addr and Value say what those fields hold.
	Core, Thread, PC, Addr, Value Field
	// Words says what each of Words[0..3] holds.
	Words [4]Field
	// List says what the borrowed List holds.
	List Field
	// Flags are the flag bits the kind may carry.
	Flags uint8
}

var (
	coreF     = Field{Label: "core", Doc: "the acting core"}
	threadF   = Field{Label: "thread", Doc: "the acting thread"}
	pcF       = Field{Label: "pc", Doc: "the instruction"}
	wordF     = Field{Label: "addr", Doc: "the accessed word"}
	cacheF    = Field{Label: "core", Doc: "the cache the event happened in"}
	causeT    = Field{Label: "thread", Doc: "the thread whose miss caused it (-1: none)", MayBeNone: true}
	causePC   = Field{Label: "pc", Doc: "the instruction whose miss caused it (-1: none)", MayBeNone: true}
	lineF     = Field{Label: "addr", Doc: "the cache line's first byte"}
	runThread = Field{Label: "thread", Doc: "the thread the outcome names (-1: none)", MayBeNone: true}
	runPC     = Field{Label: "pc", Doc: "the instruction the outcome names (-1: none)", MayBeNone: true}
	reserved  = "reserved: nothing emits it yet"
	syncHit   = FlagSync | FlagHit
	progEvent = func(k Kind, prod, doc string) Contract {
		return Contract{Kind: k, Group: "program", Producer: prod, Doc: doc, Core: coreF, Thread: threadF, PC: pcF}
	}
	coheEvent = func(k Kind, doc string) Contract {
		return Contract{Kind: k, Group: "coherence", Producer: "coherence", Doc: doc, Core: cacheF, Thread: causeT, PC: causePC, Addr: lineF}
	}
)

// contracts is the event contract, one row per kind.
var contracts = func() [NumKinds]Contract {
	var t [NumKinds]Contract
	add := func(c Contract) { t[c.Kind] = c }

	c := progEvent(KindRead, "cpu: ld, and the test read of lock", "a load performed, at its own cycle in the global (SC) order of performs")
	c.Addr, c.Value, c.Flags = wordF, Field{Label: "value", Doc: "the value read"}, syncHit
	add(c)
	c = progEvent(KindWrite, "cpu: st, and the release store of unlock and cwait", "a store performed")
	c.Addr, c.Value, c.Flags = wordF, Field{Label: "value", Doc: "the value written"}, syncHit
	add(c)
	c = progEvent(KindRMW, "cpu: cas, xchg, fadd; the swap of lock; barrier, cwait, csignal and cbcast updates", "an atomic read-modify-write performed; non-sync RMWs (cas, xchg, fadd on ordinary words) carry no FlagSync")
	c.Addr, c.Value, c.Flags = wordF, Field{Label: "value", Doc: "the word's value after (the old value when nothing was stored)"}, syncHit
	c.Words = [4]Field{{Label: "old", Doc: "the value before"}, {Label: "stored", Doc: "1 when the RMW stored, 0 when a cas or a lock swap failed"}}
	add(c)
	c = progEvent(KindSpawn, "cpu: spawn", "the parent started a thread; every later event of the child follows it")
	c.Value = Field{Label: "child", Doc: "the child's thread id"}
	c.Words = [4]Field{{Label: "child", Doc: "the child's thread id"}, {Label: "on", Doc: "the core the child runs on"}}
	add(c)
	c = progEvent(KindJoin, "cpu: join", "the joiner returned from join: the joined thread has exited")
	c.Value = Field{Label: "joined", Doc: "the joined thread's id"}
	c.Words = [4]Field{{Label: "joined", Doc: "the joined thread's id"}}
	add(c)
	add(progEvent(KindThreadExit, "cpu: exit", "the thread exited; its last event"))
	c = progEvent(KindAcquire, "cpu: lock, and cwait's reacquire", "the thread acquired a lock (after its successful swap RMW)")
	c.Addr = Field{Label: "lock", Doc: "the lock word"}
	add(c)
	c = progEvent(KindRelease, "cpu: unlock, and cwait's release", "the thread released a lock (after its release Write)")
	c.Addr = Field{Label: "lock", Doc: "the lock word"}
	add(c)
	c = progEvent(KindBarrierArrive, "cpu: barrier", "the thread arrived at a barrier (before its RMW of the barrier word)")
	c.Addr = Field{Label: "barrier", Doc: "the barrier word"}
	c.Value = Field{Label: "count", Doc: "arrivals in this generation, this one included"}
	c.Words = [4]Field{{Label: "gen", Doc: "the barrier's generation"}, {Label: "n", Doc: "the number of threads it waits for"}}
	add(c)
	c = progEvent(KindBarrierLeave, "cpu: barrier", "the thread left the barrier: every arrival of the generation happened before; the waiters leave first, then the last arriver")
	c.Addr = Field{Label: "barrier", Doc: "the barrier word"}
	c.Words = [4]Field{{Label: "gen", Doc: "the generation it left"}}
	add(c)
	c = progEvent(KindCondWait, "cpu: cwait", "the thread released its lock (Release) and sleeps on a condition variable")
	c.Addr = Field{Label: "cv", Doc: "the condition-variable word"}
	c.Words = [4]Field{{Label: "lock", Doc: "the lock word it released"}}
	add(c)
	c = progEvent(KindCondWake, "cpu: csignal, cbcast", "a waiter was woken; it follows the CondSignal that woke it, and the waiter then reacquires its lock (Acquire)")
	c.Thread = Field{Label: "thread", Doc: "the woken waiter"}
	c.Core = Field{Label: "core", Doc: "the waiter's core"}
	c.PC = Field{Label: "pc", Doc: "the waiter's cwait"}
	c.Addr = Field{Label: "cv", Doc: "the condition-variable word"}
	c.Words = [4]Field{{Label: "by", Doc: "the signalling thread"}}
	add(c)
	c = progEvent(KindCondSignal, "cpu: csignal, cbcast", "the thread signalled a condition variable; the CondWake of each waiter it woke follows")
	c.Addr = Field{Label: "cv", Doc: "the condition-variable word"}
	c.Value = Field{Label: "woken", Doc: "how many waiters it woke (0: the signal was lost)"}
	c.Words = [4]Field{{Label: "first", Doc: "the first woken thread (all ones when none)"}, {Label: "bcast", Doc: "1 for cbcast"}}
	add(c)
	c = progEvent(KindFree, "cpu: free", "the thread freed words; any later access to them crashes (detectors may treat a free as a write to each word)")
	c.Addr = Field{Label: "addr", Doc: "the first freed word"}
	c.Value = Field{Label: "words", Doc: "the number of words freed"}
	add(c)
	c = progEvent(KindOutput, "cpu: out", "the thread appended a value to the program's outputs")
	c.Value = Field{Label: "value", Doc: "the value"}
	add(c)
	add(progEvent(KindAssertFail, "cpu: assert", "an assert failed; the run ends"))
	add(progEvent(KindErrorMsg, "cpu: fail", "an error-message site ran; the thread goes on"))
	c = progEvent(KindCrash, "cpu", "the run crashed; a faulting access (null page, misaligned, outside data and heap, freed word) is not emitted as an access, its address is here")
	c.Addr = Field{Label: "addr", Doc: "the faulting address (0: not an access fault)"}
	add(c)
	c = Contract{Kind: KindHang, Group: "program", Producer: "cpu", Doc: "the run hung: a deadlock, or sim.max_cycles passed", Thread: runThread, PC: runPC}
	add(c)

	c = coheEvent(KindBusRd, "a BusRd completed (emitted at its completion, after its snoops and fill)")
	c.Core.Doc = "the requesting core"
	c.Words = [4]Field{{Label: "granted", Doc: "the cycle the bus was granted"}, {Label: "requested", Doc: "the cycle the miss asked for the bus"}, {Label: "responders", Doc: "how many caches responded"}}
	c.List = Field{Label: "resp", Doc: "the responding cores"}
	c.Flags = FlagC2C
	add(c)
	w, l := c.Words, c.List
	c = coheEvent(KindBusRdX, "a BusRdX completed")
	c.Core.Doc, c.Words, c.List, c.Flags = "the requesting core", w, l, FlagC2C
	add(c)
	c = coheEvent(KindBusUpgr, "a BusUpgr completed")
	c.Core.Doc, c.Words, c.List = "the requesting core", w, l
	add(c)
	c = coheEvent(KindWriteback, "a dirty line was written back to memory on eviction (emitted within the transaction whose fill evicted it)")
	add(c)
	c = coheEvent(KindSnoop, "one cache responded to a transaction (before the transaction's own event)")
	c.Core.Doc = "the responding cache"
	c.Words = [4]Field{{Label: "before", Doc: "its line state before (0 I, 1 S, 2 E, 3 M)"}, {Label: "after", Doc: "its line state after"},
		{Label: "supplied", Doc: "1 when it supplied the data"}, {Label: "requester", Doc: "the requesting core"}}
	add(c)
	c = coheEvent(KindFill, "the requester's line was filled (BusRd and BusRdX)")
	c.Core.Doc = "the requesting core"
	c.Words = [4]Field{{Label: "supplier", Doc: "the supplying core when FlagC2C is set (memory otherwise)"}}
	c.Flags = FlagC2C
	add(c)
	c = coheEvent(KindEvict, "a valid line was evicted to make room for a fill")
	c.Words = [4]Field{{Label: "state", Doc: "its state before (1 S, 2 E, 3 M)"}}
	add(c)
	c = coheEvent(KindMetaPiggyback, "a line's metadata record moved to a requester")
	c.Core.Doc = "the receiving core"
	c.Words = [4]Field{{Label: "from", Doc: "the sending core as a two's-complement int64 (-1: memory)"}, {Label: "bytes", Doc: "the record's payload bytes"},
		{Label: "via", Doc: "0 read reply, 1 invalidation ack, 2 a sharer's record on a memory read, 3 memory"}}
	add(c)

	bb := func(k Kind, doc string) Contract {
		return Contract{Kind: k, Group: "bugaboo", Producer: "cpu/bugaboo (BB-HW)", Doc: doc, Core: Field{Label: "core", Doc: "the core"},
			Thread: causeT, PC: causePC}
	}
	c = bb(KindCtxShift, "a communication event was shifted into a core's context register (2 or 3 bits per event, newest lowest)")
	c.Core.Doc = "the core whose register shifted"
	c.Thread.Doc = "the requesting thread for LcRd/LcWr (-1 for a snooped RmRd/RmWr)"
	c.PC.Doc = "the instruction whose miss caused it (for RmRd/RmWr the remote requester's)"
	c.Words = [4]Field{{Label: "event", Doc: "0 LcRd, 1 LcWr, 2 RmRd, 3 RmWr"}, {Label: "before", Doc: "the context before"}, {Label: "after", Doc: "the context after"}}
	add(c)
	c = bb(KindCTInsert, "an edge entered a communication table")
	c.Core.Doc = "the requesting core (its table, or the central one)"
	c.PC.Doc = "the edge's destination instruction (the miss)"
	c.Addr = lineF
	c.Words = [4]Field{{Label: "kind", Doc: "0 RAW (read reply), 1 WAW (invalidation ack), 2 MEM (memory-served read)"},
		{Label: "srcpc", Doc: "the source instruction (all ones: NULL)"}, {Label: "srcctx", Doc: "the source context"}, {Label: "dstctx", Doc: "the destination context"}}
	add(c)
	c = bb(KindCTDrop, "an edge was dropped: its table was being drained")
	c.Core.Doc = "the requesting core"
	c.Addr = lineF
	c.Words = [4]Field{{Label: "kind", Doc: "the dropped edge's kind (0 RAW, 1 WAW, 2 MEM)"}}
	add(c)
	c = bb(KindCTTrapBegin, "a full communication table trapped to the software handler, which drains it (the CTDrain follows)")
	c.Core.Doc = "the core whose insert filled the table (charged the cost unless a spare core drains)"
	c.PC = Field{}
	c.Words = [4]Field{{Label: "entries", Doc: "the entries drained"}, {Label: "cost", Doc: "the trap's cycles"}, {Label: "table", Doc: "the table (its core, or 0 when central)"}}
	add(c)
	c = bb(KindCTDrain, "the software handler drained a communication table into the run's graph (at a trap, and at the run's end)")
	c.Core = Field{Label: "core", Doc: "the trapping core (-1 at the end of a central table)", MayBeNone: true}
	c.Thread, c.PC = Field{}, Field{}
	c.Value = Field{Label: "edges", Doc: "the number of edges"}
	c.Words = [4]Field{{Label: "table", Doc: "the table"}, {Label: "final", Doc: "1 for the drain at the run's end"},
		{Label: "ctx_size", Doc: "the context register's events (the contexts' encoding)"}, {Label: "distinct_empty", Doc: "1 when the contexts use 3-bit codes with a distinct EMPTY"}}
	c.List = Field{Label: "edges", Doc: "4 words per edge: source PC (all ones: NULL), source context, destination PC, destination context"}
	add(c)
	c = bb(KindCTTrapEnd, "a drain ended (emitted at the next insert into its table, or at the run's end; Cycle is when it ended)")
	c.Core, c.Thread, c.PC = Field{}, Field{}, Field{}
	c.Words = [4]Field{{Label: "table", Doc: "the table"}, {Label: "dropped", Doc: "edges dropped while it drained"}}
	add(c)
	c = progEvent(KindPSetViolation, "cpu/pset (PSet hardware)", "a checked access's immediate remote predecessor is not in its instruction's PSet (one event per such predecessor)")
	c.Addr = wordF
	c.Words = [4]Field{{Label: "pred", Doc: "the predecessor instruction"}, {Label: "predtid", Doc: "the predecessor's thread"},
		{Label: "dep", Doc: "0 RAW, 1 WAR, 2 WAW"}, {Label: "stalled", Doc: "1 when the access stalls or rolls back (it will be checked again), 0 when it proceeds with the violation"}}
	c.Value = Field{Label: "window", Doc: "the required rollback window: instructions executed (all threads) since the predecessor's access, which a rollback must undo (rollback modes; 0 otherwise)"}
	add(c)
	for _, k := range []Kind{KindPSetCheck, KindRollbackExhausted, KindPSetUpdate} {
		add(Contract{Kind: k, Group: "pset", Doc: reserved + " (PSet hardware, DESIGN.md §3)"})
	}
	c = progEvent(KindStallBegin, "cpu: an extension's Stall verdict", "an access was stalled in its check phase")
	c.Group = "pset"
	c.Addr = Field{Label: "addr", Doc: "the stalled access's address"}
	c.Words = [4]Field{{Label: "until", Doc: "the wait condition (core.WaitKind)"}, {Label: "waddr", Doc: "the address the wait watches"}, {Label: "timeout", Doc: "its timeout in cycles (0: none)"}}
	add(c)
	c = progEvent(KindStallEnd, "cpu", "a stalled access is checked again")
	c.Group = "pset"
	c.Addr = Field{Label: "addr", Doc: "the stalled access's address"}
	c.Words = [4]Field{{Label: "timedout", Doc: "1 when the timeout, not the condition, ended the stall"}}
	add(c)
	c = Contract{Kind: KindCheckpoint, Group: "pset", Producer: "cpu: a checkpoint request, at the safe point after the event", Doc: "a checkpoint of the whole run was taken (Cycle: the cycle it holds)",
		Value: Field{Label: "instrs", Doc: "instructions executed by then"}}
	add(c)
	c = Contract{Kind: KindRollback, Group: "pset", Producer: "cpu: a rollback request, at the safe point after the event",
		Doc:   "the run was rolled back to its last checkpoint (Cycle: the cycle it left); the events that follow re-execute from the checkpoint: detectors that registered state were restored with it, the others see the discarded span's events twice",
		Value: Field{Label: "window", Doc: "instructions discarded (the actual rollback window)"},
		Words: [4]Field{{Label: "ckcycle", Doc: "the checkpoint's cycle"}, {Label: "instrs", Doc: "instructions executed when it rolled back"},
			{Label: "ckinstrs", Doc: "instructions at the checkpoint"}, {Label: "reseed", Doc: "the jitter perturbation (0: none)"}}}
	add(c)
	add(Contract{Kind: KindRunStart, Group: "run", Producer: "cpu", Doc: "the run started (the first event)",
		Words: [4]Field{{Label: "seed", Doc: "the run's seed"}}})
	add(Contract{Kind: KindRunEnd, Group: "run", Producer: "cpu", Doc: "the run ended (the last event; Cycle: the run's length)", Thread: runThread, PC: runPC,
		Words: [4]Field{{Label: "outcome", Doc: "0 pass, 1 wrong_output, 2 hang, 3 error, 4 assert, 5 crash"}}})
	return t
}()

// ContractOf returns the event contract of kind k.
func ContractOf(k Kind) *Contract {
	if k >= NumKinds {
		return &Contract{Kind: k}
	}
	return &contracts[k]
}

// Check reports how e breaks its kind's contract, or nil: an unused field
// that is not zero (-1 for Core and Thread, NoPC for PC), a used Core,
// Thread or PC that is -1 where the contract does not allow it, a flag the
// kind may not carry, or a kind nothing is declared to emit.
func (c *Contract) Check(e *Event) error {
	var bad []string
	if c.Producer == "" {
		bad = append(bad, "nothing is declared to emit it")
	}
	id := func(name string, f Field, v int32) {
		switch {
		case !f.Used() && v != -1:
			bad = append(bad, fmt.Sprintf("%s is %d, want -1 (unused)", name, v))
		case f.Used() && v < 0 && !f.MayBeNone:
			bad = append(bad, fmt.Sprintf("%s is %d, want a value", name, v))
		}
	}
	id("Core", c.Core, e.Core)
	id("Thread", c.Thread, e.Thread)
	id("PC", c.PC, e.PC)
	if !c.Addr.Used() && e.Addr != 0 {
		bad = append(bad, fmt.Sprintf("Addr is %#x, want 0 (unused)", e.Addr))
	}
	if !c.Value.Used() && e.Value != 0 {
		bad = append(bad, fmt.Sprintf("Value is %d, want 0 (unused)", e.Value))
	}
	for i, f := range c.Words {
		if !f.Used() && e.Words[i] != 0 {
			bad = append(bad, fmt.Sprintf("Words[%d] is %d, want 0 (unused)", i, e.Words[i]))
		}
	}
	if !c.List.Used() && e.List != nil {
		bad = append(bad, fmt.Sprintf("List has %d entries, want none", len(e.List)))
	}
	if e.Flags&^c.Flags != 0 {
		bad = append(bad, fmt.Sprintf("Flags %#x, the kind may carry only %#x", e.Flags, c.Flags))
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s event breaks its contract: %s", c.Kind, strings.Join(bad, "; "))
}

// ContractMarkdown renders the whole contract as a Markdown table, one row
// per kind (the README's copy is checked against it).
func ContractMarkdown() string {
	var b strings.Builder
	b.WriteString("| kind | emitted by | what it reports | fields |\n|---|---|---|---|\n")
	for k := Kind(1); k < NumKinds; k++ {
		c := &contracts[k]
		var fs []string
		add := func(name string, f Field) {
			if f.Used() {
				fs = append(fs, fmt.Sprintf("%s: %s", name, f.Doc))
			}
		}
		add("Core", c.Core)
		add("Thread", c.Thread)
		add("PC", c.PC)
		add("Addr", c.Addr)
		add("Value", c.Value)
		for i, f := range c.Words {
			add(fmt.Sprintf("Words[%d] %s", i, f.Label), f)
		}
		add("List", c.List)
		var flags []string
		for _, fl := range []struct {
			bit  uint8
			name string
		}{{FlagSync, "FlagSync"}, {FlagHit, "FlagHit"}, {FlagC2C, "FlagC2C"}} {
			if c.Flags&fl.bit != 0 {
				flags = append(flags, fl.name)
			}
		}
		if len(flags) > 0 {
			fs = append(fs, "Flags: "+strings.Join(flags, ", "))
		}
		prod := c.Producer
		if prod == "" {
			prod = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k, prod, c.Doc, strings.Join(fs, "; "))
	}
	return b.String()
}
