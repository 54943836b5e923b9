package lockset

import (
	"fmt"
)

// State returns the Eraser state of the word at a, for tests:
// "virgin", "exclusive(T)" with the owner T, "shared" or "shared-modified".
func (d *Detector) State(a uint64) string {
	if a >= d.words.End() {
		return "virgin" // never touched: asking must not grow the shadow
	}
	w := d.words.Word(a)
	if w.state == exclusive {
		return fmt.Sprintf("exclusive(%d)", w.owner)
	}
	return w.state.String()
}
