package core_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"weft/core"
)

// accessors is the contract of the payload accessors: each reads one field
// under one label, for the kinds listed. TestAccessors checks it against
// the methods and against core's contract table.
var accessors = []struct {
	name  string // the method of *core.Event
	field string // "Words[0]" … "Words[3]", "Value" or "List"
	label string // the field's label in those kinds' contracts
	kinds []core.Kind
}{
	{"Old", "Words[0]", "old", []core.Kind{core.KindRMW}},
	{"Stored", "Words[1]", "stored", []core.Kind{core.KindRMW}},
	{"Child", "Words[0]", "child", []core.Kind{core.KindSpawn}},
	{"ChildCore", "Words[1]", "on", []core.Kind{core.KindSpawn}},
	{"Joined", "Value", "joined", []core.Kind{core.KindJoin}},
	{"Generation", "Words[0]", "gen", []core.Kind{core.KindBarrierArrive, core.KindBarrierLeave}},
	{"Parties", "Words[1]", "n", []core.Kind{core.KindBarrierArrive}},
	{"Arrivals", "Value", "count", []core.Kind{core.KindBarrierArrive}},
	{"WaitLock", "Words[0]", "lock", []core.Kind{core.KindCondWait}},
	{"Signaller", "Words[0]", "by", []core.Kind{core.KindCondWake}},
	{"FirstWoken", "Words[0]", "first", []core.Kind{core.KindCondSignal}},
	{"Broadcast", "Words[1]", "bcast", []core.Kind{core.KindCondSignal}},
	{"Woken", "Value", "woken", []core.Kind{core.KindCondSignal}},
	{"FreeWords", "Value", "words", []core.Kind{core.KindFree}},
	{"Pred", "Words[0]", "pred", []core.Kind{core.KindPSetViolation}},
	{"PredThread", "Words[1]", "predtid", []core.Kind{core.KindPSetViolation}},
	{"Dep", "Words[2]", "dep", []core.Kind{core.KindPSetViolation}},
	{"Stalled", "Words[3]", "stalled", []core.Kind{core.KindPSetViolation}},
	{"Window", "Value", "window", []core.Kind{core.KindPSetViolation, core.KindRollback}},
	{"Until", "Words[0]", "until", []core.Kind{core.KindStallBegin}},
	{"WaitAddr", "Words[1]", "waddr", []core.Kind{core.KindStallBegin}},
	{"Timeout", "Words[2]", "timeout", []core.Kind{core.KindStallBegin}},
	{"TimedOut", "Words[0]", "timedout", []core.Kind{core.KindStallEnd}},
	{"TrapCost", "Words[1]", "cost", []core.Kind{core.KindCTTrapBegin}},
	{"Final", "Words[1]", "final", []core.Kind{core.KindCTDrain}},
	{"CtxSize", "Words[2]", "ctx_size", []core.Kind{core.KindCTDrain}},
	{"DistinctEmpty", "Words[3]", "distinct_empty", []core.Kind{core.KindCTDrain}},
	{"EdgeCount", "Value", "edges", []core.Kind{core.KindCTDrain}},
	{"DrainedEdges", "List", "edges", []core.Kind{core.KindCTDrain}},
	{"Seed", "Words[0]", "seed", []core.Kind{core.KindRunStart}},
	{"Outcome", "Words[0]", "outcome", []core.Kind{core.KindRunEnd}},
}

// payloadFields are the payload fields of an Event, by name.
var payloadFields = []string{"Words[0]", "Words[1]", "Words[2]", "Words[3]", "Value", "List"}

// contractField returns what c says of the named payload field.
func contractField(c *core.Contract, field string) core.Field {
	switch field {
	case "Value":
		return c.Value
	case "List":
		return c.List
	}
	var i int
	fmt.Sscanf(field, "Words[%d]", &i)
	return c.Words[i]
}

// setField stores v in the named payload field (a List of v entries).
func setField(e *core.Event, field string, v uint64) {
	switch field {
	case "Value":
		e.Value = int64(v)
	case "List":
		e.List = make([]uint64, v)
	default:
		var i int
		fmt.Sscanf(field, "Words[%d]", &i)
		e.Words[i] = v
	}
}

// read calls accessor name on e and returns its result as a number (a
// bool as 0 or 1, a slice as its length) and whether it is a bool.
func read(e *core.Event, name string) (int64, bool) {
	v := reflect.ValueOf(e).MethodByName(name).Call(nil)[0]
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	case reflect.Slice:
		return int64(v.Len()), false
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint()), false
	}
	return v.Int(), false
}

// TestAccessors ties every payload accessor to the event contract: for
// each kind it names, the field it reads carries its label (so using it on
// another kind is a mistake the table shows), it reads that field and no
// other, and every kind whose contract has the label at that field is
// named. Every method of *Event is in the table but the decoding (Op,
// Reads, Writes).
func TestAccessors(t *testing.T) {
	typ := reflect.TypeOf(&core.Event{})
	var methods []string
	for i := range typ.NumMethod() {
		if n := typ.Method(i).Name; n != "Op" && n != "Reads" && n != "Writes" {
			methods = append(methods, n)
		}
	}
	var names []string
	for _, a := range accessors {
		names = append(names, a.name)
		if !slices.Contains(payloadFields, a.field) {
			t.Errorf("%s: unknown field %q", a.name, a.field)
			continue
		}
		if _, ok := typ.MethodByName(a.name); !ok {
			t.Errorf("%s: no such method of *core.Event", a.name)
			continue
		}
		for _, k := range a.kinds {
			if f := contractField(core.ContractOf(k), a.field); f.Label != a.label {
				t.Errorf("%s() reads %s as %q, but %s's contract labels %s %q", a.name, a.field, a.label, k, a.field, f.Label)
			}
			// It reads its field, and only it: the others hold junk.
			for _, v := range []uint64{0, 1, 7} {
				e := core.Event{Kind: k, Value: -12345, Words: [4]uint64{0xdead, 0xbeef, 0xfeed, 0xface}, List: make([]uint64, 3)}
				setField(&e, a.field, v)
				want := int64(v)
				got, isBool := read(&e, a.name)
				if isBool && v != 0 {
					want = 1
				}
				if got != want {
					t.Errorf("%s() of a %s with %s = %d: %d", a.name, k, a.field, v, got)
				}
			}
		}
	}
	slices.Sort(methods)
	slices.Sort(names)
	if !slices.Equal(methods, slices.Compact(names)) {
		t.Errorf("the methods of *core.Event %v and the accessor table %v differ", methods, names)
	}
	// Completeness: where the contract uses a label at a field that some
	// accessor reads under that label, the accessor names that kind.
	for k := core.Kind(1); k < core.NumKinds; k++ {
		c := core.ContractOf(k)
		for _, field := range payloadFields {
			f := contractField(c, field)
			if !f.Used() {
				continue
			}
			var readers []string
			covered := false
			for _, a := range accessors {
				if a.field == field && a.label == f.Label {
					readers = append(readers, a.name)
					covered = covered || slices.Contains(a.kinds, k)
				}
			}
			if len(readers) > 0 && !covered {
				t.Errorf("%s's %s %q: %v read that label but do not name %s", k, field, f.Label, readers, k)
			}
		}
	}
}

// TestAccessorNone checks the accessors that read a thread id or an
// outcome on words that hold none.
func TestAccessorNone(t *testing.T) {
	e := core.Event{Kind: core.KindCondSignal, Words: [4]uint64{^uint64(0)}}
	if got := e.FirstWoken(); got != -1 {
		t.Errorf("FirstWoken of all ones: %d, want -1", got)
	}
	e = core.Event{Kind: core.KindJoin, Value: 1 << 40}
	if got := e.Joined(); got != -1 {
		t.Errorf("Joined of 1<<40: %d, want -1", got)
	}
	e = core.Event{Kind: core.KindJoin, Value: -5}
	if got := e.Joined(); got != -1 {
		t.Errorf("Joined of -5: %d, want -1", got)
	}
	e = core.Event{Kind: core.KindSpawn, Words: [4]uint64{1 << 31}}
	if got := e.Child(); got != -1 {
		t.Errorf("Child of 1<<31: %d, want -1", got)
	}
	for _, w := range []uint64{uint64(core.NumOutcomes), 256, 1 << 40} {
		e = core.Event{Kind: core.KindRunEnd, Words: [4]uint64{w}}
		if k := e.Outcome(); k.Valid() || !k.Failed() {
			t.Errorf("Outcome of %d: %v, valid %v", w, k, k.Valid())
		}
	}
	e = core.Event{Kind: core.KindRunEnd, Words: [4]uint64{uint64(core.Crash)}}
	if k := e.Outcome(); k != core.Crash {
		t.Errorf("Outcome of crash: %v", k)
	}
}
