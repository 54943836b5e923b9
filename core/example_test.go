package core_test

import (
	"fmt"

	"weft/core"
)

// bell prints each event it receives; one that asks for an echo schedules
// another event at the same cycle.
type bell struct {
	name string
	eng  *core.Engine
	id   int32
}

func (b *bell) Handle(now core.Cycle, op int32, arg uint64) {
	fmt.Printf("cycle %d: %s op %d\n", now, b.name, op)
	if arg == 1 {
		b.eng.Schedule(now, b.id, op+10, 0)
	}
}

// Events fire in order of cycle, and same-cycle events in the order they
// were scheduled, an event scheduled while a cycle fires included.
func ExampleEngine() {
	var eng core.Engine
	a := &bell{name: "a", eng: &eng}
	b := &bell{name: "b", eng: &eng}
	a.id = eng.Register(a)
	b.id = eng.Register(b)

	eng.Schedule(7, a.id, 1, 0)
	eng.Schedule(3, b.id, 1, 1) // echoes at cycle 3
	eng.Schedule(3, a.id, 2, 0)
	eng.Schedule(7, b.id, 2, 0)
	for eng.Step() {
	}
	fmt.Println("now", eng.Now())
	// Output:
	// cycle 3: b op 1
	// cycle 3: a op 2
	// cycle 3: b op 11
	// cycle 7: a op 1
	// cycle 7: b op 2
	// now 7
}
