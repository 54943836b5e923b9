package core_test

import (
	"testing"

	"weft/core"
)

// The digest's Figure 5 (§1.5): the buggy execution's contexts. The writer
// stores str in (), the reader reads str in (RmWr) and len in (RmWr,LcRd),
// the writer stores len in (LcWr,RmRd,RmRd).
func TestContextFigure5(t *testing.T) {
	for _, code := range []core.ContextCode{{Size: 5, DistinctEmpty: true}} {
		var w, r core.Context
		nw, nr := 0, 0
		push := func(ctx *core.Context, n *int, e core.CommEvent) { *ctx = code.Push(*ctx, e); *n++ }
		check := func(what string, ctx core.Context, n int, want string) {
			t.Helper()
			if got := code.Format(ctx); got != want {
				t.Errorf("%+v: %s ran in %s, want %s", code, what, got, want)
			}
		}
		check("writer's store of str", w, nw, "()")
		push(&w, &nw, core.LcWr) // its own event, after its context was taken
		push(&r, &nr, core.RmWr) // the reader hears the invalidation
		check("reader's load of str", r, nr, "(RmWr)")
		push(&r, &nr, core.LcRd)
		push(&w, &nw, core.RmRd)
		check("reader's load of len", r, nr, "(RmWr,LcRd)")
		push(&r, &nr, core.LcRd)
		push(&w, &nw, core.RmRd)
		check("writer's store of len", w, nw, "(LcWr,RmRd,RmRd)")
	}
	// Five events fill a 10-bit register; the sixth pushes the oldest out.
	c := core.ContextCode{Size: 5}
	var x core.Context
	for _, e := range []core.CommEvent{core.RmWr, core.LcRd, core.LcWr, core.RmRd, core.RmWr, core.LcWr} {
		x = c.Push(x, e)
	}
	if x != 0b00_01_10_11_01 || c.Format(x) != "(LcRd,LcWr,RmRd,RmWr,LcWr)" || c.Width() != 10 {
		t.Errorf("context %010b %s", x, c.Format(x))
	}
	if (core.ContextCode{}).Push(7, core.RmWr) != 0 {
		t.Errorf("size 0 keeps a context")
	}
}
