package model

import (
	"fmt"
	"testing"
)

const (
	objX = 0x100
	objY = 0x108
	mutM = 0x200
	mutA = 0x210
	mutB = 0x218
)

func w(obj uint64, pc int32) Access { return Access{Obj: obj, Write: true, PC: pc} }
func r(obj uint64, pc int32) Access { return Access{Obj: obj, PC: pc} }

// listing1 is the paper's Listing 1 (digest §1.3): main forks task, writes
// y (line 6), then updates x under m and joins; task updates x under m,
// then writes y (line 17).
func listing1() *Model {
	return &Model{Threads: []Thread{
		{Events: []Sync{{Kind: Fork, Obj: 1}, {Kind: Lock, Obj: mutM}, {Kind: Unlock, Obj: mutM}, {Kind: Join, Obj: 1}},
			Segs: [][]Access{{w(objY, 4)}, {w(objY, 6)}, {w(objX, 8)}, nil, nil}},
		{Events: []Sync{{Kind: Start}, {Kind: Lock, Obj: mutM}, {Kind: Unlock, Obj: mutM}, {Kind: End}},
			Segs: [][]Access{nil, nil, {w(objX, 15)}, {w(objY, 17)}, nil}},
	}}
}

// TestListing1 checks the paper's worked example: the race on y needs task
// to take m first, and its counterexample is fork, start, lock.t2.m,
// unlock.t2.m (here threads 0 and 1); x, always under m, has none; neither
// does the program deadlock.
func TestListing1(t *testing.T) {
	m := listing1()
	races, _, err := m.Races(objY, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(races) != 1 {
		t.Fatalf("races on y: %+v", races)
	}
	got := fmt.Sprint(races[0].Schedule)
	if want := "[fork.t0.0x1 start.t1.0x0 lock.t1.0x200 unlock.t1.0x200]"; got != want {
		t.Errorf("schedule %s, want %s", got, want)
	}
	if races[0].A.PC != 6 || races[0].B.PC != 17 {
		t.Errorf("race %+v", races[0])
	}
	if races, _, _ := m.Races(objX, 0, 0); len(races) != 0 {
		t.Errorf("x is always under m: %+v", races)
	}
	if dls, _, _ := m.Deadlocks(0, 0); len(dls) != 0 {
		t.Errorf("deadlocks: %+v", dls)
	}
}

// TestLockOrder is the lock-order inversion (K2): a deadlock with each
// thread holding its first lock.
func TestLockOrder(t *testing.T) {
	m := &Model{Threads: []Thread{
		{Events: []Sync{{Kind: Lock, Obj: mutA}, {Kind: Lock, Obj: mutB}, {Kind: Unlock, Obj: mutB}, {Kind: Unlock, Obj: mutA}}, Segs: make([][]Access, 5)},
		{Events: []Sync{{Kind: Lock, Obj: mutB}, {Kind: Lock, Obj: mutA}, {Kind: Unlock, Obj: mutA}, {Kind: Unlock, Obj: mutB}}, Segs: make([][]Access, 5)},
	}}
	dls, _, err := m.Deadlocks(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != 1 || fmt.Sprint(dls[0].Schedule) != "[lock.t0.0x210 lock.t1.0x218]" || len(dls[0].Blocked) != 2 {
		t.Errorf("deadlocks %+v", dls)
	}
}

// TestOrderedByPrimitives: a barrier, a signal before its wait, and a
// join each order a write before a read: no race; with the join removed
// (the child's write after the parent stops waiting) there is one.
func TestOrderedByPrimitives(t *testing.T) {
	barrier := &Model{Threads: []Thread{
		{Events: []Sync{{Kind: BarrierEnter, Obj: 1}, {Kind: BarrierExit, Obj: 1}}, Segs: [][]Access{{w(objX, 1)}, nil, nil}},
		{Events: []Sync{{Kind: BarrierEnter, Obj: 1}, {Kind: BarrierExit, Obj: 1}}, Segs: [][]Access{nil, nil, {r(objX, 2)}}},
	}}
	signal := &Model{Threads: []Thread{
		{Events: []Sync{{Kind: Signal, Obj: 7}}, Segs: [][]Access{{w(objX, 1)}, nil}},
		{Events: []Sync{{Kind: Wait, Obj: 7}}, Segs: [][]Access{nil, {r(objX, 2)}}},
	}}
	join := &Model{Threads: []Thread{
		{Events: []Sync{{Kind: Fork, Obj: 1}, {Kind: Join, Obj: 1}}, Segs: [][]Access{nil, nil, {r(objX, 2)}}},
		{Events: []Sync{{Kind: Start}, {Kind: End}}, Segs: [][]Access{nil, {w(objX, 1)}, nil}},
	}}
	for name, m := range map[string]*Model{"barrier": barrier, "signal": signal, "join": join} {
		if races, _, err := m.Races(objX, 0, 0); err != nil || len(races) != 0 {
			t.Errorf("%s: races %+v, %v", name, races, err)
		}
	}
	join.Threads[0].Segs = [][]Access{nil, {r(objX, 2)}, nil}
	if races, _, _ := join.Races(objX, 0, 0); len(races) != 1 {
		t.Errorf("the read before the join: %+v", races)
	}
}

// TestPriorAndBounds: prerequisites before the window (Outside, Held)
// enable or block events; the bound and the state limit cut the search.
func TestPriorAndBounds(t *testing.T) {
	// Thread 1 waits for a signal from before the window, and thread 0
	// holds m at the window's start: thread 1's lock waits for the unlock.
	m := &Model{
		Threads: []Thread{
			{Events: []Sync{{Kind: Unlock, Obj: mutM}}, Segs: [][]Access{{w(objX, 1)}, nil}},
			{Events: []Sync{{Kind: Wait, Obj: 9}, {Kind: Lock, Obj: mutM}}, Segs: [][]Access{nil, nil, {w(objX, 2)}}},
		},
		Held:    [][]uint64{{mutM}, nil},
		Outside: Prior{Signalled: map[uint64]bool{9: true}},
	}
	if races, _, _ := m.Races(objX, 0, 0); len(races) != 0 {
		t.Errorf("the lock held from before the window orders them: %+v", races)
	}
	m.Outside.Signalled = nil
	if dls, _, _ := m.Deadlocks(0, 0); len(dls) != 1 || dls[0].Blocked[0].Kind != Wait {
		t.Errorf("a wait whose signal never comes: %+v", dls)
	}
	// Bound 1 on Listing 1 with two racing writes to y in task.
	l := listing1()
	l.Threads[1].Segs[3] = []Access{w(objY, 17), w(objY, 18)}
	if races, _, _ := l.Races(objY, 1, 0); len(races) != 1 {
		t.Errorf("bound 1: %d races", len(races))
	}
	if _, trunc, _ := l.Races(objY, 0, 2); !trunc {
		t.Error("a 2-state limit did not truncate")
	}
	bad := &Model{Threads: []Thread{{Events: []Sync{{Kind: End}}}}}
	if _, _, err := bad.Races(objX, 0, 0); err == nil {
		t.Error("a thread without its segments is not an error")
	}
}

// TestForksInOrder: with ForksInOrder, a Fork waits for the one before
// it in Forks, so no counterexample swaps two threads' spawns.
func TestForksInOrder(t *testing.T) {
	// Threads 0 and 1 each fork once; thread 1's fork lets its child
	// race with thread 0's write, if it may come first.
	m := &Model{Threads: []Thread{
		{Events: []Sync{{Kind: Fork, Obj: 2}}, Segs: [][]Access{{w(objX, 1)}, nil}},
		{Events: []Sync{{Kind: Fork, Obj: 3}}, Segs: [][]Access{nil, nil}},
		{Events: []Sync{{Kind: Start}}, Segs: [][]Access{nil, nil}},
		{Events: []Sync{{Kind: Start}}, Segs: [][]Access{nil, {w(objX, 2)}}},
	}, Outside: Prior{Forked: map[int]bool{0: true, 1: true}}}
	if races, _, _ := m.Races(objX, 0, 0); len(races) != 1 {
		t.Fatalf("free fork order: %d races", len(races))
	}
	m.ForksInOrder, m.Forks = true, [][2]int{{0, 0}, {1, 0}}
	if races, _, _ := m.Races(objX, 0, 0); len(races) != 0 {
		t.Errorf("forks in order: %+v", races)
	}
}
