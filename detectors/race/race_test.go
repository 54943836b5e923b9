package race_test

import (
	"slices"
	"strings"
	"testing"

	"weft/core"
	"weft/detectors/hb"
	"weft/detectors/race"
	"weft/isa"
)

// Words of the hand-built streams: two data words and a lock, a condition
// variable and a barrier word.
const (
	x  = isa.DataBase
	y  = isa.DataBase + 8
	l1 = isa.DataBase + 64
	l2 = isa.DataBase + 72
	cv = isa.DataBase + 128
	br = isa.DataBase + 192
)

func rd(t, pc int32, a uint64) core.Event {
	return core.Event{Kind: core.KindRead, Thread: t, PC: pc, Addr: a}
}
func wr(t, pc int32, a uint64) core.Event {
	return core.Event{Kind: core.KindWrite, Thread: t, PC: pc, Addr: a}
}
func rmw(t, pc int32, a uint64, stored bool) core.Event {
	e := core.Event{Kind: core.KindRMW, Thread: t, PC: pc, Addr: a}
	if stored {
		e.Words[1] = 1
	}
	return e
}
func lock(t int32, l uint64) core.Event {
	return core.Event{Kind: core.KindAcquire, Thread: t, PC: 90, Addr: l}
}
func unlock(t int32, l uint64) core.Event {
	return core.Event{Kind: core.KindRelease, Thread: t, PC: 91, Addr: l}
}
func spawn(parent, child int32) core.Event {
	return core.Event{Kind: core.KindSpawn, Thread: parent, PC: 92, Value: int64(child), Words: [4]uint64{uint64(child)}}
}
func join(joiner, child int32) core.Event {
	return core.Event{Kind: core.KindJoin, Thread: joiner, PC: 93, Value: int64(child), Words: [4]uint64{uint64(child)}}
}
func signal(t int32, c uint64) core.Event {
	return core.Event{Kind: core.KindCondSignal, Thread: t, PC: 94, Addr: c, Value: 1}
}
func wake(t int32, c uint64, by int32) core.Event {
	return core.Event{Kind: core.KindCondWake, Thread: t, PC: 95, Addr: c, Words: [4]uint64{uint64(by)}}
}
func arrive(t int32, b, gen uint64) core.Event {
	return core.Event{Kind: core.KindBarrierArrive, Thread: t, PC: 96, Addr: b, Words: [4]uint64{gen, 2}}
}
func leave(t int32, b, gen uint64) core.Event {
	return core.Event{Kind: core.KindBarrierLeave, Thread: t, PC: 97, Addr: b, Words: [4]uint64{gen}}
}

// run feeds a stream to a Race detector (threads 1 and 2 spawned by 0 first)
// and returns its findings.
func run(opts race.Options, evs ...core.Event) []core.Finding {
	d := race.New(nil, opts)
	for _, e := range append([]core.Event{spawn(0, 1), spawn(0, 2)}, evs...) {
		if d.Kinds().Has(e.Kind) {
			d.Observe(&e)
		}
	}
	return d.Findings()
}

// pairs returns the findings' PC pairs.
func pairs(fs []core.Finding) [][]int32 {
	var out [][]int32
	for _, f := range fs {
		out = append(out, f.PCs)
	}
	return out
}

func TestRules(t *testing.T) {
	cases := []struct {
		name string
		evs  []core.Event
		want [][]int32 // the races' PCs
	}{
		{"unordered unlocked write-write", []core.Event{wr(1, 10, x), wr(2, 20, x)}, [][]int32{{10, 20}}},
		{"unordered read-write", []core.Event{rd(1, 10, x), wr(2, 20, x)}, [][]int32{{10, 20}}},
		{"reads never race", []core.Event{rd(1, 10, x), rd(2, 20, x)}, nil},
		{"one thread never races", []core.Event{wr(1, 10, x), rd(1, 11, x), wr(1, 12, x)}, nil},
		{"different words", []core.Event{wr(1, 10, x), wr(2, 20, y)}, nil},
		{"spawn orders", []core.Event{wr(0, 1, x), spawn(0, 3), rd(3, 30, x)}, nil},
		{"after the spawn is unordered", []core.Event{spawn(0, 3), wr(0, 1, x), rd(3, 30, x)}, [][]int32{{1, 30}}},
		{"join orders", []core.Event{wr(1, 10, x), join(0, 1), rd(0, 1, x)}, nil},
		{"signal to wake orders", []core.Event{wr(1, 10, x), signal(1, cv), wake(2, cv, 1), rd(2, 20, x)}, nil},
		{"after the signal is unordered", []core.Event{signal(1, cv), wr(1, 10, x), wake(2, cv, 1), rd(2, 20, x)}, [][]int32{{10, 20}}},
		{"barrier orders", []core.Event{wr(1, 10, x), arrive(1, br, 0), arrive(2, br, 0), leave(2, br, 0), leave(1, br, 0), wr(2, 20, x)}, nil},
		{"a stale generation gives no order", []core.Event{wr(1, 10, x), arrive(1, br, 0), leave(2, br, 1), wr(2, 20, x)}, [][]int32{{10, 20}}},
		{"common lock", []core.Event{lock(1, l1), wr(1, 10, x), unlock(1, l1), lock(2, l1), wr(2, 20, x), unlock(2, l1)}, nil},
		{"one common lock of two", []core.Event{lock(1, l1), lock(1, l2), wr(1, 10, x), unlock(1, l2), unlock(1, l1), lock(2, l2), wr(2, 20, x), unlock(2, l2)}, nil},
		{"different locks", []core.Event{lock(1, l1), wr(1, 10, x), unlock(1, l1), lock(2, l2), wr(2, 20, x), unlock(2, l2)}, [][]int32{{10, 20}}},
		{"one side unlocked", []core.Event{lock(1, l1), wr(1, 10, x), unlock(1, l1), rd(2, 20, x)}, [][]int32{{10, 20}}},
		// The lock orders the two accesses (hb: no race), but Race takes no
		// order from locks and the second access holds none.
		{"lock edges give no order", []core.Event{lock(1, l1), wr(1, 10, x), unlock(1, l1), lock(2, l1), unlock(2, l1), rd(2, 20, x)}, [][]int32{{10, 20}}},
		{"atomics never race", []core.Event{rmw(1, 10, x, true), rmw(2, 20, x, true), rmw(1, 11, x, false)}, nil},
		{"atomic against plain", []core.Event{rmw(1, 10, x, true), rd(2, 20, x)}, [][]int32{{10, 20}}},
		{"failed cas against plain read", []core.Event{rmw(1, 10, x, false), rd(2, 20, x)}, nil},
		{"failed cas against plain write", []core.Event{rmw(1, 10, x, false), wr(2, 20, x)}, [][]int32{{10, 20}}},
		{"sync accesses are not data", []core.Event{
			{Kind: core.KindWrite, Thread: 1, PC: 10, Addr: x, Flags: core.FlagSync},
			{Kind: core.KindRMW, Thread: 2, PC: 20, Addr: x, Flags: core.FlagSync, Words: [4]uint64{0, 1}}}, nil},
		{"free writes", []core.Event{rd(1, 10, y), {Kind: core.KindFree, Thread: 2, PC: 20, Addr: x, Value: 2}}, [][]int32{{10, 20}}},
		{"once per static pair, either order", []core.Event{wr(1, 10, x), wr(2, 20, x), wr(1, 10, x), wr(2, 20, y), wr(1, 10, y)}, [][]int32{{10, 20}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := run(race.Options{}, c.evs...)
			if got := pairs(fs); !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("races %v, want %v", got, c.want)
			}
			for _, f := range fs {
				if f.Detector != "race" || f.Kind != "race" || f.Score != 1 || !strings.HasPrefix(f.Message, "race on ") {
					t.Errorf("finding %+v", f)
				}
			}
		})
	}
}

// TestLockEdgesVersusHB runs the lock-ordered pair through hb too: hb
// orders it by the release → acquire edge, Race does not.
func TestLockEdgesVersusHB(t *testing.T) {
	evs := []core.Event{spawn(0, 1), spawn(0, 2), lock(1, l1), wr(1, 10, x), unlock(1, l1), lock(2, l1), unlock(2, l1), rd(2, 20, x)}
	h := hb.New(&isa.Program{}, hb.Options{})
	r := race.New(nil, race.Options{})
	for _, e := range evs {
		h.Observe(&e)
		r.Observe(&e)
	}
	if n := len(h.Findings()); n != 0 {
		t.Errorf("hb found %d races in a lock-ordered pair", n)
	}
	if fs := r.Findings(); len(fs) != 1 || fs[0].Addr != x {
		t.Errorf("race findings %v, want the one on x", fs)
	}
}

// TestFirstRacePerVar: x has two racing pairs and y one. With the option
// only the first race on each word is reported; without it, all.
func TestFirstRacePerVar(t *testing.T) {
	evs := []core.Event{
		wr(1, 12, x), wr(1, 11, x), // thread 1's two writes (latest first-PC 11 and 12)
		rd(2, 20, x), // races with both: first race on x, smallest earlier PC kept
		wr(2, 21, x), // races with both again: suppressed with the option
		wr(1, 13, y), rd(2, 22, y),
	}
	on := pairs(run(race.Options{FirstRacePerVar: true}, evs...))
	if want := [][]int32{{11, 20}, {13, 22}}; !slices.EqualFunc(on, want, slices.Equal) {
		t.Errorf("first race per var: %v, want %v", on, want)
	}
	off := pairs(run(race.Options{}, evs...))
	if want := [][]int32{{11, 20}, {11, 21}, {12, 20}, {12, 21}, {13, 22}}; !slices.EqualFunc(off, want, slices.Equal) {
		t.Errorf("every race: %v, want %v", off, want)
	}
}

// TestLatestInstanceIsEnough: an early instance ordered by a join and a
// later one not; the static pair is found through the latest.
func TestLatestInstanceIsEnough(t *testing.T) {
	fs := run(race.Options{}, wr(1, 10, x), signal(1, cv), wake(2, cv, 1), wr(1, 10, x), rd(2, 20, x))
	if got := pairs(fs); !slices.EqualFunc(got, [][]int32{{10, 20}}, slices.Equal) {
		t.Errorf("races %v, want [10 20]", got)
	}
}

// TestBadInput: out-of-range threads, unaligned or low addresses, unknown
// joins and an enormous free are ignored or bounded, never a panic.
func TestBadInput(t *testing.T) {
	fs := run(race.Options{},
		wr(-1, 10, x), wr(race.MaxThreads, 11, x), wr(1<<30, 12, x),
		wr(1, 13, x+3), wr(2, 14, x+3), wr(1, 15, 8), wr(2, 16, 8),
		core.Event{Kind: core.KindJoin, Thread: 1, Value: 1 << 40}, join(1, -5), join(1, 1), spawn(1, 1), spawn(1, 1<<30),
		unlock(1, l1), lock(1, l1), lock(1, l1),
		core.Event{Kind: core.KindFree, Thread: 1, PC: 17, Addr: x, Value: 1 << 62},
		core.Event{Kind: core.KindFree, Thread: 1, PC: 18, Addr: x, Value: -3},
		core.Event{Kind: core.KindCrash, Thread: 2, PC: 1 << 20, Addr: x},
		core.Event{Kind: core.KindCrash, Thread: 2, PC: -1, Addr: x},
		wr(2, 19, x+8*(race.MaxFreeWords-1)),
	)
	// The only race: the free's last counted word against thread 2's write.
	if got := pairs(fs); !slices.EqualFunc(got, [][]int32{{17, 19}}, slices.Equal) {
		t.Errorf("races %v, want [[17 19]]", got)
	}
}

// TestHeld checks the lock tracker's sets and sections.
func TestHeld(t *testing.T) {
	ls := race.NewLocks()
	obs := func(e core.Event) { ls.Observe(&e) }
	obs(lock(1, l2))
	obs(lock(1, l1))
	a := ls.Now(1)
	obs(unlock(1, l1))
	obs(lock(1, l1))
	b := ls.Now(1)
	obs(lock(2, l1))
	c := ls.Now(2)
	if len(a.Sections) != 2 || a.Sections[0].Lock != l1 || a.Sections[1].Lock != l2 {
		t.Fatalf("sections %v, want sorted l1, l2", a.Sections)
	}
	if a.Set != b.Set || a.Set == c.Set || a.Set == 0 || ls.Now(3).Set != 0 {
		t.Errorf("sets %d %d %d %d: same lock words must share a set id", a.Set, b.Set, c.Set, ls.Now(3).Set)
	}
	if !a.In(b.Sections[1]) || a.In(b.Sections[0]) || !a.Common(c) || !a.Holds(l2) || c.Holds(l2) || ls.Now(3).Common(a) {
		t.Errorf("sections: a %v b %v c %v", a.Sections, b.Sections, c.Sections)
	}
}

// TestClocks checks the happens-before tracker directly, bad thread ids
// included.
func TestClocks(t *testing.T) {
	c := race.NewClocks()
	obs := func(e core.Event) { c.Observe(&e) }
	before := c.Now(0)
	obs(spawn(0, 1))
	child, after := c.Now(1), c.Now(0)
	if !race.Before(0, before, child) || race.Before(0, after, child) || race.Before(1, child, after) {
		t.Errorf("spawn: parent before %v, after %v, child %v", before, after, child)
	}
	obs(join(0, 1))
	if !race.Before(1, child, c.Now(0)) {
		t.Errorf("join: child %v not before the joiner %v", child, c.Now(0))
	}
	if before[0] != 1 || len(before) != 1 {
		t.Errorf("a stamp changed after it was handed out: %v", before)
	}
	if c.Now(-1) != nil || c.Now(race.MaxThreads) != nil || c.Now(-1).Get(0) != 0 {
		t.Errorf("out-of-range threads have clocks")
	}
	obs(core.Event{Kind: core.KindCondWake, Thread: 2, Addr: cv}) // no signal yet: nothing
	if got := c.Now(2); len(got) != 3 || got[2] != 1 || got[0] != 0 {
		t.Errorf("a wake without a signal changed the clock: %v", got)
	}
}
