package core

import "testing"

type recordHandler struct{ fired []int32 }

func (r *recordHandler) Handle(now Cycle, op int32, arg uint64) { r.fired = append(r.fired, op) }

func TestCancel(t *testing.T) {
	e := &Engine{}
	h := &recordHandler{}
	id := e.Register(h)
	var seqs []uint64
	for i := 0; i < 9; i++ {
		seqs = append(seqs, e.Schedule(Cycle(9-i), id, int32(i), 0))
	}
	if !e.Cancel(seqs[4]) || !e.Cancel(seqs[0]) || e.Cancel(seqs[4]) || e.Cancel(999) {
		t.Fatal("Cancel reported the wrong removals")
	}
	for e.Step() {
	}
	want := []int32{8, 7, 6, 5, 3, 2, 1}
	if len(h.fired) != len(want) {
		t.Fatalf("fired %v, want %v", h.fired, want)
	}
	for i := range want {
		if h.fired[i] != want[i] {
			t.Fatalf("fired %v, want %v", h.fired, want)
		}
	}
	if _, ok := e.Peek(); ok {
		t.Error("queue not empty")
	}
}
